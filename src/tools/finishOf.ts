import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { StreamProtocolError } from '../core/errors.js';
import type { ToolLoopEvent, ToolLoopFinishEvent } from './ToolLoopEvent.js';

/**
 * What `pick` takes of the `finish` event of a loop's events, once, at their completion; a
 * `StreamProtocolError('stream_incomplete')` if they end without it (`name` says whose).
 */
export function finishOf<R>(name: string, pick: (finish: ToolLoopFinishEvent) => R): OperatorFunction<ToolLoopEvent, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let finish: ToolLoopFinishEvent | undefined;
      source.subscribe(
        createOperatorSubscriber<ToolLoopEvent>(
          subscriber,
          (event) => {
            if (event.type === 'finish') finish = event;
          },
          () => {
            if (finish === undefined) {
              subscriber.error(new StreamProtocolError('stream_incomplete', `${name}: the tool loop's events ended without their \`finish\` event`));
              return;
            }
            subscriber.next(pick(finish));
            subscriber.complete();
          },
        ),
      );
    });
}
