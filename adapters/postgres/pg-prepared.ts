/**
 * Named (prepared) statements for the hottest writes: a statement sent with a name is parsed and planned once per
 * connection and then only bound and executed, where an unnamed one is parsed and planned on every execution. The
 * collection task claim and the versioned replace are most of a sweep's statements; named, PostgreSQL's CPU per sweep
 * fell from 19.0 to 13.1 ms at 500 concurrent sweeps (bench:collection). The name is a digest of the text, so one name
 * always means one text, on every connection. A connection pooler must keep prepared statements per client
 * (PgBouncer 1.21+ with max_prepared_statements in transaction mode; session mode always does).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from './pg-support.js';

const names = new Map<string, string>();

/** The statement name of `text`: `ch_` and the first 24 hex digits of its SHA-256 (texts are a handful, remembered). */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `ch_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** `q`, with every `query(text, values)` sent as a named statement (a config object passes through as it is). */
export function prepared(q: Queryable): Queryable {
  return {
    query: ((text: unknown, values?: unknown) => {
      if (typeof text !== 'string') return (q.query as (...a: unknown[]) => unknown)(text, values);
      return (q.query as (config: pg.QueryConfig) => unknown)({ name: statementName(text), text, values: values as unknown[] });
    }) as Queryable['query'],
  };
}
