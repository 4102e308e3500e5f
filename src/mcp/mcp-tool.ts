import { toDraft2020 } from './schema-2020.js';
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolError, type Tool, type ToolResult } from '../contracts/tool.js';
import type { McpConnection, ServerTool } from './mcp-connection.js';

/** The Messages API's limit on a tool name. */
const MAX_NAME = 64;
/** A server's description past this is cut: every request carries it. */
export const MAX_DESCRIPTION = 2048;
/** A server's input schema past this many bytes of JSON is not offered (the tool is left out, with a warning). */
export const MAX_SCHEMA_BYTES = 32 * 1024;

/**
 * `mcp__<server>__<tool>`, made valid for the Messages API: characters outside `[A-Za-z0-9_-]`
 * become `_`, and a name over 64 characters is cut and given a short hash so it stays unique.
 */
export function apiToolName(server: string, tool: string): string {
  const clean = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_NAME && clean(tool) === tool) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return full.length <= MAX_NAME - 9 ? `${full}_${hash}` : `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The server's input schema as the Messages API takes it: an object schema, whatever the server sent. */
export function apiInputSchema(schema: Record<string, unknown>): { type: 'object'; [key: string]: unknown } {
  return { ...toDraft2020(schema), type: 'object' };
}

export function boundedDescription(server: string, text: string): string {
  const said = text.trim() || `The tool of the MCP server ${server}.`;
  return said.length <= MAX_DESCRIPTION ? said : `${said.slice(0, MAX_DESCRIPTION - 1)}…`;
}

const input = z.record(z.string(), z.unknown());

/** A server's tool as a teamd tool: same registry, same permission rules and hooks as the built-in ones. */
export function mcpTool(connection: McpConnection, tool: ServerTool, name: string, toolTimeoutMs: number): Tool {
  return {
    name,
    description: boundedDescription(connection.name, tool.description),
    input,
    inputSchema: apiInputSchema(tool.inputSchema),
    // A tool that says it only reads may run before a required plan is approved; any other may change things.
    needsApprovedPlan: !tool.readOnly,
    async run(args, ctx): Promise<ToolResult> {
      if (connection.state !== 'ready') return toolError(`${name} is unavailable: ${connection.unavailable()}`);
      try {
        return resultOf(await connection.call(tool.name, args as Record<string, unknown>, ctx.signal, toolTimeoutMs));
      } catch (error) {
        if (connection.state !== 'ready' && !ctx.signal.aborted)
          return toolError(`${name} failed: the server stopped while the call ran; ${connection.unavailable()}`);
        const message = error instanceof Error ? error.message : String(error);
        return toolError(`${name} failed: ${message.split('\n')[0]!.slice(0, 2000)}`);
      }
    },
  };
}

/** An MCP tool result as a tool result: text as is, images and other binary content as notes, structured content as JSON. */
export function resultOf(result: CallToolResult): ToolResult {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type} (${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes): not shown; teamd passes only text from MCP tools]`);
        break;
      case 'resource_link':
        parts.push(`[resource ${block.name}: ${block.uri}]`);
        break;
      case 'resource': {
        const resource = block.resource;
        parts.push('text' in resource ? resource.text : `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}: not shown]`);
        break;
      }
    }
  }
  if (result.structuredContent !== undefined && parts.length === 0) parts.push(JSON.stringify(result.structuredContent));
  const legacy = (result as { toolResult?: unknown }).toolResult;
  if (parts.length === 0 && legacy !== undefined) parts.push(typeof legacy === 'string' ? legacy : JSON.stringify(legacy));
  const content = parts.join('\n');
  if (result.isError) return toolError(content || 'the MCP tool reported an error without saying why');
  return { content: content || '(the MCP tool returned nothing)' };
}
