import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';
import { DOCS_HTML, INITIALIZER_JS, swaggerAsset } from './swagger-ui.js';

/** The API description and its Swagger UI: public, the only /api paths without a bearer token. */
@Controller('api')
export class OpenApiController {
  private document?: OpenApiDocument;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get('openapi.json')
  openapi(): OpenApiDocument {
    // Built on first use: the route table does not change while the process runs.
    this.document ??= buildOpenApiDocument(this.deps.routes);
    return this.document;
  }

  @Get('docs')
  async docs(@Res() reply: FastifyReply): Promise<void> {
    await reply.type('text/html; charset=utf-8').send(DOCS_HTML);
  }

  @Get('docs/swagger-initializer.js')
  async initializer(@Res() reply: FastifyReply): Promise<void> {
    await reply.type('text/javascript; charset=utf-8').send(INITIALIZER_JS);
  }

  @Get('docs/:asset')
  async asset(@Param('asset') name: string, @Res() reply: FastifyReply): Promise<void> {
    const asset = swaggerAsset(name);
    if (!asset) throw new NotFoundException(`no documentation asset ${name}`);
    await reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(await asset.bytes);
  }
}
