import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A course template's place in a program (1-based; dense over the courses and tasks of the program together). `program_ids` on course templates is read from them. */
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

/**
 * A task (checkpoint)'s place in a program. Positions are shared with `program_courses`: one 1-based,
 * dense sequence over the program's courses and tasks together (docs/catalog.md "Programs").
 */
@Entity({ schema: 'catalog', name: 'program_tasks' })
export class ProgramTask {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'program_id', type: 'integer' })
  programId: number;

  @PrimaryColumn({ name: 'task_id', type: 'integer' })
  taskId: number;

  @Column({ type: 'integer' })
  position: number;
}
