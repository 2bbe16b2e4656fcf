import express from 'express';
import { defer } from 'rxjs';
import { createDemandGate, decodeChunk, parseChatRequest, parseSse, requestCompletion, retryOnTransient, toOutputChunks } from 'chatflux';
import { sendSse } from 'chatflux/node';

const upstream = { baseUrl: process.env.CHATFLUX_BASE_URL ?? 'https://api.deepseek.com', apiKey: process.env.DEEPSEEK_API_KEY };
const port = Number(process.env.PORT ?? 3000);

const app = express();
app.post('/chat/sse', express.json(), (req, res) => {
  const demand = createDemandGate(); // a slow client pauses the upstream read
  const request = () => ({ model: 'deepseek-chat', ...parseChatRequest(req.body) }); // a bad body: 400, SSE error format
  const chunks = defer(() => requestCompletion(request(), { ...upstream, demand })).pipe(
    parseSse(), decodeChunk(), retryOnTransient(), toOutputChunks(),
  );
  void sendSse(res, chunks, { demand }); // data: {"message":…,"done":false,"index":0} … data: [DONE]
});
app.listen(port, () => console.log(`POST http://127.0.0.1:${port}/chat/sse`));
