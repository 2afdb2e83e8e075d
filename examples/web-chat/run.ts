/** `npm run demo:web`: the web chat on http://127.0.0.1:5180/ (PORT overrides), offline scripted model. */
import { startWebChat } from "./web-chat-server.js";

const chat = await startWebChat({ port: Number(process.env.PORT ?? 5180) });
console.log(`agentchart web chat: ${chat.url}  (sessions in ${chat.sessionRoot}; Ctrl-C stops)`);
