import { Job, Processor, QueueProcessor } from '../../lib';
import { ResizeImageResult } from '../images/resize-image.job';
import { ALBUMS_QUEUE, PublishAlbumJob, PublishAlbumResult } from './publish-album.job';

/**
 * Publishes an album once every photo of it is resized: the job is the parent of a flow (see
 * `ProducerService.enqueueAlbum`), so it runs only after all of its children in the `images` queue completed,
 * and reads what they returned with `getChildrenResults()`.
 */
@Processor(ALBUMS_QUEUE)
export class AlbumsProcessor implements QueueProcessor<PublishAlbumJob, PublishAlbumResult> {
  async process(job: Job<PublishAlbumJob>): Promise<PublishAlbumResult> {
    const resized = Object.values(await job.getChildrenResults<ResizeImageResult>());
    return { albumId: job.data.albumId, photos: resized.length, totalBytes: resized.reduce((sum, photo) => sum + photo.bytes, 0) };
  }
}
