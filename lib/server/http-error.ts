/** An error the API answers with: its status and the `{error, detail}` envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** Short machine-readable code, e.g. `validation_failed`. */
    readonly code: string,
    /** What happened and what to fix. */
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);
