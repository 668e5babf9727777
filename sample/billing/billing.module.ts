import { Module } from '@nestjs/common';
import { BillingProcessor } from './billing.processor';

/** Feature module of the `billing` queue; exports its processor so the summary can read its retry count. */
@Module({ providers: [BillingProcessor], exports: [BillingProcessor] })
export class BillingModule {}
