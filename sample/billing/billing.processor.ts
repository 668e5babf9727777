import { Job, OnJobEvent, Processor, QueueEventOf, QueueProcessor } from '../../lib';
import { simulateWork } from '../common/simulate-work';
import { BILLING_QUEUE, BillCustomerJob, BillCustomerResult } from './bill-customer.job';

/** Every this-many-th invoice hits a (simulated) gateway timeout on its first attempt. */
const FLAKY_EVERY = 25;

/** A transient error from the payment provider: worth retrying, unlike `UnrecoverableError`. */
export class PaymentGatewayError extends Error {
  override name = 'PaymentGatewayError';
}

/**
 * Bills customers. The payment provider is flaky, so about 4% of charges fail once; the queue retries them
 * after a short backoff and they succeed on attempt 2. Low concurrency to stay under the provider's rate limit.
 */
@Processor(BILLING_QUEUE, { concurrency: 4, maxAttempts: 3, backoff: { type: 'exponential', delay: 100 } })
export class BillingProcessor implements QueueProcessor<BillCustomerJob, BillCustomerResult> {
  private readonly retried: string[] = [];

  /** Ids of the jobs that were retried, so the summary can show how their retries went. */
  get retriedJobIds(): readonly string[] {
    return this.retried;
  }

  async process(job: Job<BillCustomerJob>): Promise<BillCustomerResult> {
    const { customerId, invoiceNumber, amountCents } = job.data;
    await simulateWork(2, 6, job.signal);
    // Deterministic rather than random, so every run shows the same number of retries.
    if (job.attempt === 1 && invoiceNumber % FLAKY_EVERY === 0) {
      throw new PaymentGatewayError(`gateway timeout charging ${amountCents} cents to ${customerId}`);
    }
    return { chargeId: `ch_${invoiceNumber}_${job.attempt}` };
  }

  /**
   * Called for each retry of this queue, once it is recorded. Listening here rather than noting the throw in
   * process() also catches failures the handler never sees, such as timeouts. A throw here is only logged.
   */
  @OnJobEvent('retrying')
  onRetrying(event: QueueEventOf<'retrying'>): void {
    this.retried.push(event.jobId);
  }
}
