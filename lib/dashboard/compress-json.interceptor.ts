import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import { Observable, map } from 'rxjs';
import { chooseEncoding, compress } from './assets/dashboard-assets';

/** Below this a JSON answer goes as it is: compressing it would save next to nothing. */
const SMALLEST_COMPRESSED = 1024;

/** The request and reply fields read and set here, alike on Express and Fastify. */
interface HttpLike {
  headers?: Record<string, string | string[] | undefined>;
}
interface ReplyHeaders {
  header(name: string, value: string): unknown;
}

/**
 * Compresses the dashboard's JSON answers with brotli or gzip when the browser accepts it, as the assets are
 * (`chooseEncoding`): a queue page polls a ten-odd-kilobyte answer every `refreshInterval`, most of it repeated
 * names and keys. Only object answers are touched (the page shell is a string, the assets send themselves);
 * an error answer, thrown past this, goes uncompressed.
 */
@Injectable()
export class CompressJsonInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<HttpLike>();
    const reply = http.getResponse<ReplyHeaders>();
    return next.handle().pipe(
      map((body: unknown) => {
        if (typeof body !== 'object' || body === null || body instanceof StreamableFile) return body;
        // Whatever the encoding, the answer depends on Accept-Encoding: a cache between must keep them apart.
        reply.header('Vary', 'Accept-Encoding');
        const encoding = chooseEncoding(request.headers?.['accept-encoding']);
        // Without an encoding the framework serializes the answer itself: no need to do it here first.
        if (encoding === 'identity') return body;
        const json = Buffer.from(JSON.stringify(body), 'utf8');
        if (json.length < SMALLEST_COMPRESSED) return body;
        reply.header('Content-Encoding', encoding);
        const packed = compress(json, encoding, 'fast');
        return new StreamableFile(packed, { type: 'application/json; charset=utf-8', length: packed.length });
      }),
    );
  }
}
