import { Module, type DynamicModule } from '@nestjs/common';
import { Authenticator } from './auth/authenticator.js';
import { Masquerade } from './auth/masquerade.js';
import { FilesController } from './files/files.controller.js';
import { LiveUpdatesController } from './files/live-updates.controller.js';
import { ScormPlayerController } from './files/scorm-player.controller.js';
import { GATEWAY_DEPS, type GatewayDeps } from './gateway-deps.js';
import { HealthController } from './health/health.controller.js';
import { BodyWatch } from './http/body-watch.js';
import { RequestDrain } from './http/request-drain.js';
import { RequestObserver } from './http/request-observer.js';
import { RouteForwarder } from './http/route-forwarder.js';
import { RouteRegistrar } from './http/route-registrar.js';
import { SecurityHeaders } from './http/security-headers.js';
import { ServiceClient } from './http/service-client.js';
import { Uploads } from './http/uploads.js';
import { HttpMetrics } from './metrics/http-metrics.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { OpenApiController } from './openapi/openapi.controller.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';

@Module({})
export class GatewayModule {
  static forRoot(deps: GatewayDeps): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController, MetricsController, OpenApiController, FilesController, ScormPlayerController, LiveUpdatesController],
      providers: [{ provide: GATEWAY_DEPS, useValue: deps }, Authenticator, BodyWatch, Masquerade, HttpMetrics, RateLimiter, RequestDrain, RequestObserver, RouteForwarder, RouteRegistrar, SecurityHeaders, ServiceClient, Uploads],
    };
  }
}
