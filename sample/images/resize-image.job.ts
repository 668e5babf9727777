/** Name of the queue that resizes images. */
export const IMAGES_QUEUE = 'images';

/** Payload of an `images` job. The image itself stays in storage; the job carries only its key. */
export interface ResizeImageJob {
  imageKey: string;
  width: number;
  height: number;
}

/** What the processor stores as the job's result. */
export interface ResizeImageResult {
  outputKey: string;
  bytes: number;
}
