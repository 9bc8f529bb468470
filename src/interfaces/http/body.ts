import type { z } from 'zod';
import { MoonError } from '../../index.js';

/** A request body read as JSON and checked by `schema`; a bad one is a `bad_input` error naming the field. */
export function parseJsonBody<T>(schema: z.ZodType<T>, text: string): T {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new MoonError('bad_input', `the body is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MoonError('bad_input', `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}
