import { Job, Processor, QueueProcessor } from '../../lib';
import { simulateWork } from '../common/simulate-work';
import { IMAGES_QUEUE, ResizeImageJob, ResizeImageResult } from './resize-image.job';

/**
 * Resizes images. Resizing is CPU-heavy in real life, so few run at once, and a timeout keeps one huge
 * image from holding a slot forever (the job's signal is aborted and the attempt fails with JobTimeoutError).
 */
@Processor(IMAGES_QUEUE, { concurrency: 8, timeout: 5_000 })
export class ImagesProcessor implements QueueProcessor<ResizeImageJob, ResizeImageResult> {
  async process(job: Job<ResizeImageJob>): Promise<ResizeImageResult> {
    const { imageKey, width, height } = job.data;
    await simulateWork(3, 8, job.signal);
    return { outputKey: `${imageKey}@${width}x${height}.webp`, bytes: Math.round(width * height * 0.15) };
  }
}
