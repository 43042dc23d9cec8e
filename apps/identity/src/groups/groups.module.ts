import { Module } from '@nestjs/common';
import { tenantRepositoryProvider } from '@lms/platform';
import { LearnerFiguresModule } from '../learner-figures/learner-figures.module.js';
import { User } from '../users/user.entity.js';
import { GroupLearnersHandlers } from './group-learners.handlers.js';
import { GroupLearnersService } from './group-learners.service.js';
import { GroupMembership } from './group-membership.entity.js';
import { Group } from './group.entity.js';
import { GroupsHandlers } from './groups.handlers.js';
import { GroupsService } from './groups.service.js';

/** Groups, their tree, and group learners (memberships). Entities: Group, GroupMembership. */
@Module({
  imports: [LearnerFiguresModule],
  controllers: [GroupsHandlers, GroupLearnersHandlers],
  providers: [
    GroupsService,
    GroupLearnersService,
    tenantRepositoryProvider(Group),
    tenantRepositoryProvider(GroupMembership),
    tenantRepositoryProvider(User),
  ],
})
export class GroupsModule {}
