import { JobStatus } from './job-info.interface';

/** A job linked to another by `dependsOn`: its queue, name and status, or `removed` (and no queue) once deleted. */
export interface JobDependencyLink {
  id: string;
  queue: string | null;
  name: string | null;
  status: JobStatus | 'removed';
}

/** The graph around a job (`QueueAdmin.getJobDependencies`): what it waits for, and what waits for it. */
export interface JobDependencies {
  /** The jobs it was added to wait for (`dependsOn`), oldest first, up to the limit asked; deleted ones as `removed`. */
  dependencies: JobDependencyLink[];
  /** How many jobs it waits for in all. */
  dependencyCount: number;
  /** The jobs added to wait for it, oldest first, up to the limit asked. */
  dependents: JobDependencyLink[];
  /** How many jobs wait for it in all. */
  dependentCount: number;
}

/** Options of `QueueAdmin.getJobDependencies()`. */
export interface GetJobDependenciesOptions {
  /** Most jobs listed on each side, 1 to 1,000. Default 50. */
  limit?: number;
}
