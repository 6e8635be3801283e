import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config';

/**
 * OpenAPI document of every route, generated from the controllers (@nestjs/swagger), with the three
 * ways to authenticate. JSON at /api/swagger/json/, YAML at /api/swagger/yaml/, a browsable page at /api/swagger/.
 */
export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  const builder = new DocumentBuilder()
    .setTitle(`${config.productName} API`)
    .setDescription('Authentication and session layer (AWX-compatible). Log in at /api/login/ for a browser session.')
    .setVersion('v2')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'HTTP basic (RFC 7617); AUTH_BASIC_ENABLED' }, 'basic')
    .addCookieAuth(config.sessionCookieName, { type: 'apiKey', in: 'cookie', description: 'Browser session from /api/login/; unsafe methods need X-CSRFToken' }, 'session');
  if (config.oauth2ProviderEnabled) {
    builder.addBearerAuth({ type: 'http', scheme: 'bearer', description: 'OAuth 2 access token (personal or application)' }, 'bearer');
  }
  const document = SwaggerModule.createDocument(app, builder.build());
  // Every API path ends in "/" (SPEC §1); Nest reports them without it.
  document.paths = Object.fromEntries(Object.entries(document.paths).map(([path, item]) => [path.endsWith('/') ? path : `${path}/`, item]));
  document.security = [{ basic: [] }, { session: [] }, ...(config.oauth2ProviderEnabled ? [{ bearer: [] }] : [])];
  SwaggerModule.setup('api/swagger', app, document, { jsonDocumentUrl: 'api/swagger/json', yamlDocumentUrl: 'api/swagger/yaml', raw: ['json', 'yaml'] });
}
