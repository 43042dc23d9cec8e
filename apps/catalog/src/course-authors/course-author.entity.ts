import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ schema: 'catalog', name: 'course_authors' })
export class CourseAuthor {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
