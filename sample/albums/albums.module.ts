import { Module } from '@nestjs/common';
import { AlbumsProcessor } from './albums.processor';

/** Feature module of the `albums` queue. */
@Module({ providers: [AlbumsProcessor] })
export class AlbumsModule {}
