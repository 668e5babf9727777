/** Name of the queue that publishes photo albums: a flow parent, run once all of its photos are resized. */
export const ALBUMS_QUEUE = 'albums';

/** Payload of an `albums` job. */
export interface PublishAlbumJob {
  albumId: string;
}

/** What the processor stores as the job's result. */
export interface PublishAlbumResult {
  albumId: string;
  photos: number;
  totalBytes: number;
}
