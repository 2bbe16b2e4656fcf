import { createDoneTracker } from '../../src/source/createDoneTracker';

const FRAME = 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hello, world"}}]}\n\n';
const endsWithDone = (...chunks: string[]): boolean => {
  const tracker = createDoneTracker();
  for (const chunk of chunks) tracker.push(Buffer.from(chunk, 'utf8'));
  return tracker.endsWithDone();
};

describe('createDoneTracker', () => {
  it.each([
    ['LF', `${FRAME}data: [DONE]\n\n`],
    ['CRLF', `${FRAME}data: [DONE]\r\n\r\n`],
    ['CR', `${FRAME}data: [DONE]\r\r`],
    ['mixed terminators', `${FRAME}data: [DONE]\r\n\n`],
    ['no space after the colon', `${FRAME}data:[DONE]\n\n`],
    ['after an event: message line', `${FRAME}event: message\ndata: [DONE]\n\n`],
    ['as the whole stream', 'data: [DONE]\n\n'],
  ])('recognises the [DONE] event at the end (%s)', (_name, stream) => {
    expect(endsWithDone(stream)).toBe(true);
  });

  it('recognises it however the bytes were split, byte by byte included', () => {
    const stream = `${FRAME}data: [DONE]\r\n\r\n`;
    for (let cut = 1; cut < stream.length; cut += 1)
      expect(endsWithDone(stream.slice(0, cut), stream.slice(cut))).toBe(true);
    expect(endsWithDone(...stream.split(''))).toBe(true);
  });

  it.each([
    ['nothing yet', ''],
    ['an ordinary frame', FRAME],
    ['no blank line yet', `${FRAME}data: [DONE]\n`],
    ['one CRLF is one line end, not two', `${FRAME}data: [DONE]\r\n`],
    ['more after [DONE]', `${FRAME}data: [DONE]\n\n${FRAME}`],
    ['other data', `${FRAME}data: [DONE] \n\n`],
    ['another field name', `${FRAME}xdata: [DONE]\n\n`],
    ['a second line in the event', `${FRAME}data: [DONE]\nid: 7\n\n`],
    ['two spaces', `${FRAME}data:  [DONE]\n\n`],
  ])('does not take %s for the end', (_name, stream) => {
    expect(endsWithDone(stream)).toBe(false);
  });
});
