import { Job, Processor, QueueProcessor } from '../../lib';
import { simulateWork } from '../common/simulate-work';
import { IMAGES_QUEUE, ResizeImageJob, ResizeImageResult } from './resize-image.job';

/** Above this many pixels an image is resized in tiles, and progress is reported after each one. */
const BIG_IMAGE_PIXELS = 20_000_000;
/** Few tiles: each `updateProgress()` is a database write plus an event, so it should mark real steps. */
const TILES = 4;

/**
 * Resizes images. Resizing is CPU-heavy in real life, so few run at once, and a timeout keeps one huge
 * image from holding a slot forever (the job's signal is aborted and the attempt fails with JobTimeoutError).
 */
@Processor(IMAGES_QUEUE, { concurrency: 8, timeout: 5_000 })
export class ImagesProcessor implements QueueProcessor<ResizeImageJob, ResizeImageResult> {
  async process(job: Job<ResizeImageJob>): Promise<ResizeImageResult> {
    const { imageKey, width, height } = job.data;
    if (width * height > BIG_IMAGE_PIXELS) {
      // A big image takes a while, so it says how far it got: stored on the job (QueueAdmin.getJob().progress)
      // for a dashboard, and emitted as a 'progress' event (see EventsReporterService).
      for (let tile = 1; tile <= TILES; tile++) {
        await simulateWork(10, 20, job.signal);
        await job.updateProgress(Math.round((tile / TILES) * 100));
      }
    } else {
      await simulateWork(3, 8, job.signal);
    }
    return { outputKey: `${imageKey}@${width}x${height}.webp`, bytes: Math.round(width * height * 0.15) };
  }
}
