"""On-demand benchmarks: tabmcp against Playwright MCP and Chrome DevTools MCP (see bench/README.md)."""
