import { Entity, PrimaryColumn } from 'typeorm';

/** A course template's place in a program. The program feature writes them; `program_ids` is read from them. */
@Entity({ schema: 'catalog', name: 'program_courses' })
export class ProgramCourse {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @PrimaryColumn({ name: 'program_id', type: 'integer' })
  programId: number;
}
