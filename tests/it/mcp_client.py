"""`reel mcp` driven by the Python MCP SDK's stdio client (PyPI `mcp`), a client nobody here
wrote. Run by tests/mcp.rs with the reel binary as argv[1] and the data folder, config and
simulator in the environment. Exits 0 when every check holds, else says which failed."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def expect(condition, what):
    if not condition:
        raise SystemExit(f"failed: {what}")


async def main(reel):
    params = StdioServerParameters(command=reel, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        info = types.Implementation(name="python agent", version="1.0")
        async with ClientSession(read, write, client_info=info) as session:
            init = await session.initialize()
            expect(init.server_info.name == "reel", f"server name {init.server_info.name}")
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ["models", "check", "submit", "status", "wait", "search", "show"]:
                expect(name in tools, f"tool {name} listed")
            expect("prompt" in tools["submit"].input_schema["properties"], "submit's schema names prompt")

            quote = await session.call_tool(
                "check", {"model": "aurora-3.0/t2v", "prompt": "a heron", "ratio": ["16:9", "1:1"], "seconds": 5}
            )
            expect(not quote.is_error, f"check: {text(quote)}")
            expect(json.loads(text(quote))["tasks"] == 2, f"two tasks quoted: {text(quote)}")

            bad = await session.call_tool("check", {"model": "aurora-3.0/t2v", "prompt": "a heron", "seconds": 999})
            expect(bad.is_error and "seconds" in text(bad), f"seconds refused: {text(bad)}")

            # A wrong type is a tool error naming the field, not serde's words nor a protocol error.
            typed = await session.call_tool("submit", {"model": "aurora-3.0/t2v", "prompt": "a heron", "seconds": "ten"})
            expect(typed.is_error and 'seconds: "ten" is not' in text(typed), f"seconds named: {text(typed)}")

            local = await session.call_tool(
                "submit",
                {"model": "aurora-3.0/i2v", "prompt": "x", "media": [{"type": "first_frame", "url": "/etc/hosts"}]},
            )
            expect(local.is_error and "local file" in text(local), f"a local path refused: {text(local)}")

            sent = await session.call_tool("submit", {"model": "aurora-3.0/t2v", "prompt": "a heron", "copies": 2})
            expect(not sent.is_error, f"submit: {text(sent)}")
            ids = [t["id"] for t in json.loads(text(sent))["tasks"]]
            expect(len(ids) == 2, f"two ids: {ids}")

            progress = []

            async def on_progress(done, total, message):
                progress.append((done, total, message))

            waited = await session.call_tool("wait", {"ids": ids, "timeout_secs": 60}, progress_callback=on_progress)
            expect(not waited.is_error, f"wait: {text(waited)}")
            answer = json.loads(text(waited))
            expect(answer["all_ended"], f"all ended: {answer}")
            expect(all(t["state"] == "downloaded" for t in answer["tasks"]), f"downloaded: {answer}")
            expect(progress and progress[-1][0] == 2 and progress[-1][1] == 2, f"progress to 2 of 2: {progress}")

            expect(all(t["tags"] == ["agent-python-agent"] for t in answer["tasks"]), f"labelled: {answer}")

            found = await session.call_tool("search", {"query": "heron tag:agent-python-agent"})
            expect(sorted(t["id"] for t in json.loads(text(found))["tasks"]) == sorted(ids), f"found: {text(found)}")

            shown = await session.call_tool("show", {"id": ids[0]})
            expect(not shown.is_error, f"show: {text(shown)}")
            images = [c for c in shown.content if getattr(c, "type", None) == "image"]
            if os.environ.get("MCP_EXPECT_IMAGE") == "1":
                expect(len(images) == 1 and images[0].mime_type == "image/jpeg", "the poster as an image")
            else:
                expect("poster_unavailable" in json.loads(text(shown)), f"why there is no poster: {text(shown)}")
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
