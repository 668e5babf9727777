import { Injectable } from '@nestjs/common';
import { BulkJobItem, InjectQueue, Queue, QueueBulkJob, QueueProducer } from '../lib';
import { BILLING_QUEUE, BillCustomerJob } from './billing/bill-customer.job';
import { EMAIL_QUEUE, SendEmailJob, SendEmailResult } from './email/send-email.job';
import { ALBUMS_QUEUE, PublishAlbumJob } from './albums/publish-album.job';
import { IMAGES_QUEUE, ResizeImageJob } from './images/resize-image.job';
import { SAMPLE_CONFIG } from './sample.config';

/** Priority of jobs a user is waiting on; everything else keeps the default 0. Higher runs first. */
const INTERACTIVE_PRIORITY = 10;

/**
 * Plays the part of the application code that creates work: batches go in with `addBulk` (one atomic
 * statement per call), one-off jobs with `add`. E-mail goes through the `email` queue's handle (`@InjectQueue`,
 * registered by EmailModule), with a job name per kind of e-mail, as a BullMQ app would; the other queues through
 * `QueueProducer`, which any provider can inject.
 */
@Injectable()
export class ProducerService {
  constructor(
    private readonly producer: QueueProducer,
    @InjectQueue(EMAIL_QUEUE) private readonly email: Queue<SendEmailJob, SendEmailResult>,
  ) {}

  /** Enqueues the whole demo workload and returns how many jobs went to each queue. */
  async enqueueAll(): Promise<Record<string, number>> {
    const counts = await Promise.all([this.enqueueEmails(), this.enqueueImages(), this.enqueueBilling(), this.enqueueAlbum()]);
    const total: Record<string, number> = {};
    for (const [queue, count] of counts.flat()) total[queue] = (total[queue] ?? 0) + count;
    return total;
  }

  /**
   * A flow: one `albums` job that runs only after its photos, resized in the `images` queue, have all completed,
   * enqueued in one atomic call (see AlbumsProcessor).
   */
  private async enqueueAlbum(): Promise<[string, number][]> {
    const photos = 6;
    await this.producer.addFlow<PublishAlbumJob>({
      queue: ALBUMS_QUEUE,
      data: { albumId: 'summer-trip' },
      children: range(photos).map((i) => ({
        queue: IMAGES_QUEUE,
        data: { imageKey: `albums/summer-trip/${i}.jpg`, width: 1600, height: 1200 } satisfies ResizeImageJob,
      })),
    });
    return [
      [ALBUMS_QUEUE, 1],
      [IMAGES_QUEUE, photos],
    ];
  }

  private async enqueueEmails(): Promise<[string, number][]> {
    const { newsletters, passwordResets, welcomeFollowUps } = SAMPLE_CONFIG.jobs;
    const batch: QueueBulkJob<SendEmailJob>[] = range(newsletters).map((i) => ({
      name: 'newsletter',
      data: { to: `subscriber${i}@example.com` },
    }));
    await this.email.addBulk(batch);
    // Added after the newsletter batch, yet they jump ahead of it: a user is waiting for these. BullMQ's argument
    // order: name, data, options.
    for (const i of range(passwordResets)) {
      await this.email.add('password-reset', { to: `user${i}@example.com` }, { priority: INTERACTIVE_PRIORITY });
    }
    // Delayed jobs sit in `pending` until they are due, then run like any other.
    for (const i of range(welcomeFollowUps)) {
      await this.email.add('welcome-follow-up', { to: `new${i}@example.com` }, { delay: SAMPLE_CONFIG.delayMs });
    }
    return [[EMAIL_QUEUE, newsletters + passwordResets + welcomeFollowUps]];
  }

  private async enqueueImages(): Promise<[string, number][]> {
    const { imageResizes } = SAMPLE_CONFIG.jobs;
    const { panoramaEvery } = SAMPLE_CONFIG;
    const batch: BulkJobItem<ResizeImageJob>[] = range(imageResizes).map((i) => {
      // One in ten is an avatar the user just uploaded: it goes first. Options are per item in a bulk.
      const avatar = i % 10 === 0;
      // A few are big panoramas: slow enough that their processor reports progress (see ImagesProcessor).
      if (i % panoramaEvery === panoramaEvery / 2) return { data: { imageKey: `panoramas/${i}.jpg`, width: 8000, height: 4000 } };
      return {
        data: { imageKey: avatar ? `avatars/${i}.png` : `gallery/${i}.jpg`, width: avatar ? 256 : 1280, height: avatar ? 256 : 720 },
        options: avatar ? { priority: INTERACTIVE_PRIORITY } : undefined,
      };
    });
    await this.producer.addBulk(IMAGES_QUEUE, batch);
    return [[IMAGES_QUEUE, imageResizes]];
  }

  private async enqueueBilling(): Promise<[string, number][]> {
    const { invoices, scheduledCharges } = SAMPLE_CONFIG.jobs;
    const batch: BulkJobItem<BillCustomerJob>[] = range(invoices).map((i) => ({
      data: { customerId: `cus_${1000 + i}`, invoiceNumber: i + 1, amountCents: 990 + (i % 7) * 500 },
    }));
    await this.producer.addBulk(BILLING_QUEUE, batch);
    for (const i of range(scheduledCharges)) {
      const data: BillCustomerJob = { customerId: `cus_sched_${i}`, invoiceNumber: 100_000 + i, amountCents: 4900 };
      await this.producer.add(BILLING_QUEUE, data, { delay: SAMPLE_CONFIG.delayMs });
    }
    return [[BILLING_QUEUE, invoices + scheduledCharges]];
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
