// Checks API responses against the served OpenAPI document with a real JSON Schema validator.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Doc = {
  paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }>;
  components: { schemas: Record<string, unknown> };
};

export async function validateOpenApiDocument(
  doc: unknown,
): Promise<{ valid: boolean; errors: unknown; version: string }> {
  const validator = new Validator();
  const res = await validator.validate(structuredClone(doc) as Parameters<Validator['validate']>[0]);
  return { valid: res.valid, errors: res.errors, version: validator.version };
}

export function createResponseValidator(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const cache = new Map<string, ValidateFunction>();
  return function validateResponse(pathTemplate: string, status: number, body: unknown): void {
    const op = doc.paths[pathTemplate]?.get;
    if (!op) throw new Error(`no GET ${pathTemplate} in the OpenAPI document`);
    const response = op.responses[String(status)];
    if (!response) throw new Error(`status ${status} is not documented for GET ${pathTemplate}`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== undefined && body !== '') throw new Error(`status ${status} documents no body`);
      return;
    }
    const key = `${pathTemplate} ${status}`;
    let validate = cache.get(key);
    if (!validate) {
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
      validate = ajv.compile(rewritten);
      cache.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `GET ${pathTemplate} ${status} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`,
      );
    }
  };
}
