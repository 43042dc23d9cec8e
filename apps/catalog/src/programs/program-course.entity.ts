import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A course template's place in a program (1-based, dense). `program_ids` on course templates is read from them. */
@Entity({ schema: 'catalog', name: 'program_courses' })
export class ProgramCourse {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @PrimaryColumn({ name: 'program_id', type: 'integer' })
  programId: number;

  @Column({ type: 'integer' })
  position: number;
}
