import { Inject, Injectable } from '@nestjs/common';
import { LEARNER_LIVE_COURSE_SUBJECTS, type LiveCourseSummariesReply, type LiveCourseSummary, type RequestContext } from '@lms/contracts';
import { MESSAGE_BUS, type MessageBus, requestSigned, RUNTIME, type Runtime, signedChannel, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';

/** What catalog learns of live courses: asked of scheduling over request/reply (design §1), never its schema. */
@Injectable()
export class SchedulingLiveCourses {
  private readonly scheduling: SignedRequestOptions;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus, @Inject(RUNTIME) runtime: Runtime) {
    this.scheduling = signedRequestsTo('scheduling', signedChannel(bus, runtime.config));
  }

  /** The live courses by id; deleted or unknown ones are absent. */
  async summaries(ctx: RequestContext, ids: number[]): Promise<Map<number, LiveCourseSummary>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const reply = await requestSigned<LiveCourseSummariesReply>(this.scheduling, ctx, LEARNER_LIVE_COURSE_SUBJECTS.summaries, { ids: unique });
    return new Map(reply.live_courses.map((c) => [c.id, c]));
  }
}
