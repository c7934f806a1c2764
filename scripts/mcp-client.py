#!/usr/bin/env python3
"""A real MCP client session against `evokb mcp`, on the official Python SDK (`pip install mcp`).

Usage: mcp-client.py EVOKB_BINARY KB_ROOT

Starts the server the way an agent's client does (a child process on stdio), lists the tools
and calls search, query, stats_hits and get, checking each answer; a bad call must come back as
a tool error. Exits 1 on the first mismatch, printing what differed.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {
    "search", "query", "get", "similar", "add", "queue_add", "queue_confirm", "lint",
    "render_check", "stats_hits",
}
TASK = "mcp-client-script"


def fail(message):
    print(f"mcp-client: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def payload(result, tool):
    """The JSON a successful call returned, checked against its text content."""
    if result.is_error:
        fail(f"{tool} returned a tool error: {result.content}")
    text = json.loads(result.content[0].text)
    if result.structured_content is not None and result.structured_content != text:
        fail(f"{tool}: the structured content differs from the text")
    return text


async def session(binary, root):
    params = StdioServerParameters(command=binary, args=["--root", root, "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            if init.server_info.name != "evokb":
                fail(f"the server calls itself {init.server_info.name!r}")
            tools = (await s.list_tools()).tools
            names = {t.name for t in tools}
            if names != EXPECTED_TOOLS:
                fail(f"tools differ: {sorted(names ^ EXPECTED_TOOLS)}")
            for t in tools:
                if t.input_schema.get("type") != "object" or not t.description:
                    fail(f"tool {t.name} lacks an object schema or a description")
            print(f"tools: {len(tools)} listed, each with a schema and a description")

            found = payload(await s.call_tool("search", {"query": "attention", "task": TASK}), "search")
            results = found["results"]
            if not results or found["query"] != "attention":
                fail(f"search found nothing: {found}")
            top = results[0]["id"]
            print(f"search 'attention': {len(results)} results, top {top}")

            hits = payload(await s.call_tool("stats_hits", {}), "stats_hits")
            row = next((e for e in hits["entries"] if e["id"] == top), None)
            if row is None or row["last_hit_task"] != TASK:
                fail(f"the search hit was not recorded with task {TASK!r}: {row}")
            print(f"stats_hits: {top} has {row['hits']} hits, the last from {TASK}")

            rows = payload(await s.call_tool("query", {"family": ["attention"], "limit": 5}), "query")
            if rows["count"] < 1 or not rows["entries"]:
                fail(f"query found no attention entries: {rows}")
            for e in rows["entries"]:
                if "attention" not in e["family"]:
                    fail(f"query returned {e['id']} of family {e['family']}")
            print(f"query family=attention: {rows['count']} entries, {len(rows['entries'])} returned")

            record = payload(await s.call_tool("get", {"id": top}), "get")
            if record["id"] != top or not record["text"]:
                fail(f"get {top} returned {record.get('id')}")
            print(f"get {top}: {record['kind']} in {record['file']}")

            title = results[0]["title"]
            near = payload(await s.call_tool("similar", {"text": title, "top": 3}), "similar")
            ids = [m["id"] for m in near["matches"]]
            if top not in ids:
                fail(f"similar to {top}'s own title did not rank {top}: {ids}")
            print(f"similar to {top}'s title: {ids}, delta {near['delta']!r}")

            bad = await s.call_tool("get", {"id": "NO-SUCH-ID"})
            if not bad.is_error or "no record has the id" not in bad.content[0].text:
                fail(f"a bad id did not come back as a tool error: {bad}")
            again = payload(await s.call_tool("get", {"id": top}), "get")
            if again["id"] != top:
                fail("the server did not answer after a bad call")
            print("bad call: a tool error with the CLI's message; the server still answers")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    asyncio.run(session(sys.argv[1], sys.argv[2]))
    print("mcp-client: OK")


if __name__ == "__main__":
    main()
