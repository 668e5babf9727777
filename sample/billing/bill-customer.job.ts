/** Name of the queue that bills customers. */
export const BILLING_QUEUE = 'billing';

/** Payload of a `billing` job. Amounts are integer cents: JSON and floats do not mix well with money. */
export interface BillCustomerJob {
  customerId: string;
  invoiceNumber: number;
  amountCents: number;
}

/** What the processor stores as the job's result. */
export interface BillCustomerResult {
  chargeId: string;
}
