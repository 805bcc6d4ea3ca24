import { Wingman } from "@wingman/client";

const wingman = new Wingman(); // the server and key come from WINGMAN_SERVER and WINGMAN_API_KEY
const agent = await wingman.createAgent({ name: "echo", provider: "scripted", model: "echo" });
const session = await wingman.createSession({ agent_id: agent.id });
const { run_id } = await wingman.sendMessage(session.id, { message: "Hello, Wingman!" });
for await (const event of wingman.tail(run_id)) {
  if (event.type === "text_delta") process.stdout.write(event.text);
}
const run = await wingman.waitFor(run_id);
console.log(`\n${run.status} after ${run.steps} step(s)`);
