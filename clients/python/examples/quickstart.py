from wingman_client import Wingman

with Wingman() as wingman:  # WINGMAN_SERVER and WINGMAN_API_KEY come from the environment
    agent = wingman.create_agent(name="echo", provider="scripted", model="echo")
    session = wingman.create_session(agent_id=agent.id)
    run = wingman.send_message(session.id, "Hello, Wingman!")
    for event in wingman.tail(run.run_id):  # reconnects by itself; each seq once
        if event.type == "text_delta":
            print(event["text"], end="", flush=True)
    print("\nstatus:", wingman.wait_for(run.run_id).status)
