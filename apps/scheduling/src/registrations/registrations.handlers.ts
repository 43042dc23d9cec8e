import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  envelope,
  type ListRegistrationsQuery,
  type RegisterBody,
  REGISTRATION_SUBJECTS as S,
  type RegistrationParams,
  type RpcRequest,
  type SessionRegistrationsParams,
  type UpdateRegistrationBody,
  type WaitlistBody,
} from '@lms/contracts';
import { Handles, noContent, paged } from '@lms/platform';
import { RegistrationsService } from './registrations.service.js';

@Controller()
export class RegistrationsHandlers {
  constructor(private readonly registrations: RegistrationsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListRegistrationsQuery, SessionRegistrationsParams>) {
    const [rows, total] = await this.registrations.list(ctx, params.live_course_session_id, query);
    return paged(envelope('registrations', rows), total);
  }

  @Handles(S.register)
  async register(@Payload() { ctx, params, body }: RpcRequest<RegisterBody, object, SessionRegistrationsParams>) {
    await this.registrations.register(ctx, params.live_course_session_id, body.user_id, body.from_waitlist === true);
    return noContent();
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateRegistrationBody, object, RegistrationParams>) {
    return envelope('registrations', await this.registrations.checkIn(ctx, params.live_course_session_id, params.id, body.live_course_session_registration.marked_complete_at));
  }

  @Handles(S.unregister)
  async unregister(@Payload() { ctx, params }: RpcRequest<unknown, object, RegistrationParams>) {
    await this.registrations.unregister(ctx, params.live_course_session_id, params.id);
    return noContent();
  }

  @Handles(S.waitlist)
  async waitlist(@Payload() { ctx, params, body }: RpcRequest<WaitlistBody, object, SessionRegistrationsParams>) {
    await this.registrations.joinWaitlist(ctx, params.live_course_session_id, body.user_id);
    return noContent();
  }
}
