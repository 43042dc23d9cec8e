import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ schema: 'catalog', name: 'slide_comments' })
export class SlideComment {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ name: 'slide_id', type: 'integer' })
  slideId: number;

  /** The comment's author. */
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text' })
  body: string;

  @Column({ name: 'upvotes_count', type: 'integer', default: 0 })
  upvotesCount: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** One user's upvote of a comment (the key allows one). */
@Entity({ schema: 'catalog', name: 'slide_comment_votes' })
export class SlideCommentVote {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'comment_id', type: 'integer' })
  commentId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
