"""Plays a coding agent with the official Python SDK (PyPI `mcp`): runs
`webfold mcp --tools page,ui` over stdio in a project, waits for what the user
picks and writes in the browser, reads the page the user saw through the page
tools, and answers in parts.

Usage: ui_agent.py WEBFOLD_BIN PROJECT DB
The daemon's home comes from WEBFOLD_HOME in the environment. Prints one JSON
line with what it saw and exits non-zero on the first failed check.
"""

import asyncio
import json
import os
import sys

import mcp


def check(cond, what):
    if not cond:
        raise AssertionError(what)


async def run(binary, project, db):
    server = mcp.StdioServerParameters(
        command=binary,
        args=["mcp", "--tools", "page,ui", "--db", db],
        cwd=project,
        env=dict(os.environ),
    )
    seen = {}
    async with mcp.Client(server) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        for want in ["get_ui_context", "list_sessions", "respond_to_browser",
                     "update_status", "get_conversation_history", "get_dom_outline"]:
            check(want in tools, f"tool {want} listed: {sorted(tools)}")
        # Block until the user writes (a pick alone also wakes the call).
        for _ in range(5):
            r = await client.call_tool("get_ui_context", {"wait_seconds": 30})
            check(not r.is_error, f"get_ui_context: {r}")
            if (r.structured_content or {}).get("userMessage"):
                break
        text = r.content[0].text
        ctx = r.structured_content
        check(ctx.get("userMessage"), f"a message arrived: {text}")
        check("<user-message>\n" + ctx["userMessage"] + "\n</user-message>" in text,
              f"the user's words are fenced: {text}")
        check("<page-content>" in text, f"the page is fenced: {text}")
        check(any(c.type == "image" for c in r.content), "an inline screenshot")
        conversation = ctx.get("conversationId")
        check(conversation and f"conversation_id: {conversation}" in text,
              f"a conversation for the page tools: {text}")
        seen["context"] = ctx

        outline = await client.call_tool("get_dom_outline", {"conversation_id": conversation})
        check(not outline.is_error, f"outline of the user's page: {outline}")
        seen["outline"] = outline.content[0].text

        sessions = await client.call_tool("list_sessions", {})
        seen["sessions"] = sessions.structured_content

        session, message = ctx["sessionId"], ctx["messageId"]
        await client.call_tool("update_status", {"sessionId": session, "status": "thinking"})
        for part in ["The ", "button ", "is "]:
            r = await client.call_tool("respond_to_browser", {
                "sessionId": session, "messageId": message,
                "message": part, "isComplete": False})
            check(not r.is_error, f"part sent: {r}")
        r = await client.call_tool("respond_to_browser", {
            "sessionId": session, "messageId": message,
            "message": "**blue**.", "isComplete": True})
        check(r.structured_content.get("delivered") is True, f"delivered: {r}")

        history = await client.call_tool("get_conversation_history", {"sessionId": session})
        seen["history"] = history.structured_content
    return seen


def main():
    binary, project, db = sys.argv[1:4]
    print(json.dumps(asyncio.run(run(binary, project, db))))


if __name__ == "__main__":
    main()
