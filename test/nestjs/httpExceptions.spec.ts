import {
  BadGatewayException,
  ConflictException,
  Controller,
  ForbiddenException,
  HttpException,
  Injectable,
  NotFoundException,
  Post,
  ServiceUnavailableException,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { defer, throwError } from 'rxjs';
import { ChatfluxExceptionFilter, ChatJson, ChatNdjson, ChatSse } from '../../src/nestjs/index.js';
import { rawRequest, type RawResponse } from '../helpers/rawRequest.js';
import { expectErrorBeforeCommit, type Endpoint } from '../helpers/wireAssertions.js';
import { startNestApp, type NestTestApp } from './startNestApp.js';

@Injectable()
class Forbid implements CanActivate {
  canActivate(): boolean {
    throw new ForbiddenException('not for you');
  }
}

/** As @nestjs/throttler's guard does: sets Retry-After on the response, then throws a 429. */
@Injectable()
class Throttle implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    context.switchToHttp().getResponse<{ setHeader(name: string, value: string): void }>().setHeader('Retry-After', '30');
    throw new HttpException('ThrottlerException: Too Many Requests', 429);
  }
}

@Injectable()
class Deny implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException('no entry');
  }
}

@Controller('my')
class ExceptionsController {
  @Post('forbidden') @UseGuards(Forbid) @ChatSse() forbidden(): number {
    return 1;
  }

  @Post('throttled') @UseGuards(Throttle) @ChatJson() throttled(): number {
    return 1;
  }

  @Post('unauthorized') @UseGuards(Deny) @ChatNdjson() unauthorized(): number {
    return 1;
  }

  @Post('missing') @ChatJson() missing(): never {
    throw new NotFoundException('no such conversation');
  }

  /** An async handler rejecting: the rejection reaches the writer as an error notification. */
  @Post('missing-async') @ChatNdjson() async missingAsync(): Promise<never> {
    await Promise.resolve();
    throw new NotFoundException('no such conversation');
  }

  /** An error notification of the handler's own Observable. */
  @Post('conflict-stream') @ChatSse() conflictStream() {
    return defer(() => throwError(() => new ConflictException('a reply is already running')));
  }

  @Post('unavailable') @ChatNdjson() unavailable(): never {
    throw new ServiceUnavailableException('maintenance');
  }

  @Post('bad-gateway') @ChatJson() badGateway(): never {
    throw new BadGatewayException('secret upstream host 10.0.0.7');
  }

  /** The filter alone, on a handler of the user's own. */
  @Post('filtered') @UseGuards(Forbid) @UseFilters(new ChatfluxExceptionFilter('json')) filtered(): number {
    return 1;
  }
}

describe('Nest HttpExceptions keep their 4xx (and 503) status in the endpoint’s error format', () => {
  let nest: NestTestApp;
  beforeAll(async () => {
    nest = await startNestApp({ controllers: [ExceptionsController] });
  });
  afterAll(async () => nest.close());

  const post = (path: string): Promise<RawResponse> => rawRequest(`${nest.url}/my/${path}`, { body: { messages: [{ role: 'user', content: 'x' }] } });

  it.each([
    ['forbidden', '/chat/sse', 403, { message: 'not for you', type: 'invalid_request_error', code: 'forbidden' }],
    ['throttled', '/chat/json', 429, { message: 'ThrottlerException: Too Many Requests', type: 'rate_limit_error', code: 'rate_limited' }],
    ['missing', '/chat/json', 404, { message: 'no such conversation', type: 'invalid_request_error', code: 'not_found' }],
    ['missing-async', '/chat/stream', 404, { message: 'no such conversation', type: 'invalid_request_error', code: 'not_found' }],
    ['conflict-stream', '/chat/sse', 409, { message: 'a reply is already running', type: 'invalid_request_error', code: 'conflict' }],
    ['unavailable', '/chat/stream', 503, { message: 'maintenance', type: 'server_error', code: 'service_unavailable' }],
    ['filtered', '/chat/json', 403, { message: 'not for you', type: 'invalid_request_error', code: 'forbidden' }],
  ] as Array<[string, Endpoint, number, object]>)('/my/%s → %s %i', async (path, endpoint, status, body) => {
    expect(expectErrorBeforeCommit(await post(path), endpoint, status)).toEqual(body);
  });

  it('a guard’s Retry-After survives on the 429', async () => {
    expect((await post('throttled')).headers['retry-after']).toBe('30');
  });

  it('the headers are those the writers give every error of the format (here: a 401’s)', async () => {
    const strip = (res: RawResponse): unknown => {
      const { date: _date, 'content-length': _length, 'www-authenticate': _auth, ...headers } = res.headers;
      return headers;
    };
    expect(strip(await post('unavailable'))).toEqual(strip(await post('unauthorized')));
  });

  it('a 5xx other than 503 stays a 500 that discloses nothing', async () => {
    const res = await post('bad-gateway');
    expect(expectErrorBeforeCommit(res, '/chat/json', 500, 'internal_error').message).toBe('internal server error');
    expect(res.body).not.toContain('10.0.0.7');
  });
});
