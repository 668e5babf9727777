import { Module } from '@nestjs/common';
import { ImagesProcessor } from './images.processor';

/** Feature module of the `images` queue. */
@Module({ providers: [ImagesProcessor] })
export class ImagesModule {}
