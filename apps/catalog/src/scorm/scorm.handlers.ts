import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type IdParams, PlayerCommitCall, PlayerFileCall, PlayerStateCall, type RpcRequest, SCORM_SUBJECTS as S, type UploadedFile } from '@lms/contracts';
import { badRequest, Handles, reply } from '@lms/platform';
import { CourseTemplatePresenter, SINGLE_RECORD } from '../course-templates/course-template.presenter.js';
import { ScormPlayerService } from './scorm-player.service.js';
import { ScormService } from './scorm.service.js';

@Controller()
export class ScormHandlers {
  constructor(
    private readonly scorm: ScormService,
    private readonly player: ScormPlayerService,
    private readonly presenter: CourseTemplatePresenter,
  ) {}

  @Handles(S.upload)
  async upload(@Payload() { ctx, params, body }: RpcRequest<{ upload?: UploadedFile }, object, IdParams>) {
    if (!body?.upload?.key) throw badRequest('UPLOAD_MISSING', 'Send the package as the request body (Content-Type: application/zip).');
    const course = await this.scorm.upload(ctx, params.id, body.upload);
    return envelope('course_templates', await this.presenter.present(ctx, [course], SINGLE_RECORD));
  }

  @Handles(S.launchUrl)
  async launchUrl(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    const launch = await this.scorm.launchUrl(ctx, params.id);
    return { url: launch.url, player_launch_type: launch.playerLaunchType };
  }

  @Handles(S.mobileLaunch)
  async mobileLaunch(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return reply(undefined, { status: 302, headers: { location: (await this.scorm.launchUrl(ctx, params.id, 'scorm')).url } });
  }

  // The player's calls come from the gateway's SCORM player, not from a route (docs/scorm.md).
  @Handles(S.playerState, { body: PlayerStateCall })
  async playerState(@Payload() { ctx, body }: RpcRequest<PlayerStateCall>) {
    return this.player.playerState(ctx, body.registration_id, body.sco);
  }

  @Handles(S.playerFile, { body: PlayerFileCall })
  async playerFile(@Payload() { ctx, body }: RpcRequest<PlayerFileCall>) {
    return this.player.playerFile(ctx, body.registration_id, body.path);
  }

  @Handles(S.playerCommit, { body: PlayerCommitCall })
  async playerCommit(@Payload() { ctx, body }: RpcRequest<PlayerCommitCall>) {
    await this.player.commit(ctx, body.registration_id, body.sco ?? 0, body.cmi);
    return { result: true, errorCode: 0 };
  }
}
