/**
 * Base class of every error this library throws on purpose, so callers can catch them all with one
 * `instanceof` check and still tell them apart by their own class. Backend-neutral: PostgreSQL errors extend it too.
 */
export abstract class QueueError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
