/**
 * freshctx for pi — written by `freshctx init pi`, taken away by
 * `freshctx init pi --remove`. Once edited it is yours: init and --remove
 * leave it as it is and say so.
 *
 * - `read` answers from freshctx's read cache: pi's own read runs first (its
 *   result shape, limits, images and errors stay pi's), freshctx records
 *   what it delivered and, when the model already holds those lines or a
 *   diff is shorter, answers with that instead.
 * - The read session follows pi's session tree: each answer's tool result
 *   carries the key of its call, and before every call freshctx is told the
 *   latest such key on the model's branch after the last compaction. A
 *   compaction, /tree, /fork, /resume, --continue and /new need nothing
 *   else. pi's edit and write mark the file edited.
 * - Tests and builds in bash go through `freshctx run` (hooks.run_commands).
 *   A line none of whose words is the first word of one of those commands,
 *   as the store mirrors them beside it, starts no freshctx: most of what
 *   an agent runs.
 * - `readcache_refresh` (tool), `/readcache-refresh PATH [START-END]` and
 *   `/readcache-status` (commands) do what pi-readcache's do.
 * - If freshctx is missing, fails or is slow, pi's own read answers.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { createReadToolDefinition } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const BIN = process.env.FRESHCTX_BIN || "freshctx";
// How long a read waits for freshctx before pi's own answer stands.
const TIMEOUT_MS = Number(process.env.FRESHCTX_PI_TIMEOUT_MS || 3000);
const TAG = "freshctx";
const REPLACING = new Set(["unchanged", "unchanged_range", "diff"]);

type Tag = { session: string; key: string; entry: number };

/** One `freshctx mcp` process, spoken to over stdio (JSON-RPC, a line each). */
class Client {
	private proc: ChildProcess;
	private buf = "";
	private next = 1;
	private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
	dead = false;
	ready: Promise<boolean>;

	constructor(cwd: string) {
		this.proc = spawn(BIN, ["mcp", "--structured"], { cwd, stdio: ["pipe", "pipe", "ignore"] });
		this.proc.on("error", () => this.fail("freshctx could not be started"));
		this.proc.on("exit", () => this.fail("freshctx exited"));
		this.proc.stdin?.on("error", () => this.fail("freshctx's input closed"));
		this.proc.stdout?.setEncoding("utf8");
		this.proc.stdout?.on("data", (chunk: string) => this.receive(chunk));
		this.ready = this.request("initialize", {
			protocolVersion: "2025-06-18",
			capabilities: {},
			clientInfo: { name: "freshctx-pi", version: "1" },
		}, 10 * TIMEOUT_MS).then(
			() => {
				this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
				return true;
			},
			() => false,
		);
	}

	private receive(chunk: string) {
		this.buf += chunk;
		for (let i = this.buf.indexOf("\n"); i >= 0; i = this.buf.indexOf("\n")) {
			const line = this.buf.slice(0, i).trim();
			this.buf = this.buf.slice(i + 1);
			if (!line) continue;
			let msg: any;
			try {
				msg = JSON.parse(line);
			} catch {
				continue;
			}
			if (msg.id !== undefined && msg.method) {
				// A request of the server's (ping): answered, nothing else asked.
				this.send({ jsonrpc: "2.0", id: msg.id, result: {} });
				continue;
			}
			const p = this.pending.get(msg.id);
			if (!p) continue;
			this.pending.delete(msg.id);
			if (msg.error) p.reject(new Error(msg.error.message || "freshctx error"));
			else p.resolve(msg.result);
		}
	}

	private send(msg: object) {
		if (!this.dead) this.proc.stdin?.write(JSON.stringify(msg) + "\n");
	}

	private fail(why: string) {
		this.dead = true;
		for (const p of this.pending.values()) p.reject(new Error(why));
		this.pending.clear();
	}

	request(method: string, params: object, timeout = TIMEOUT_MS): Promise<any> {
		if (this.dead) return Promise.reject(new Error("freshctx is not running"));
		const id = this.next++;
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				if (!this.pending.delete(id)) return;
				// Too slow: the call is cancelled, so its answer is never trusted.
				this.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "timeout" } });
				reject(new Error("freshctx was too slow"));
			}, timeout);
			this.pending.set(id, {
				resolve: (v) => (clearTimeout(timer), resolve(v)),
				reject: (e) => (clearTimeout(timer), reject(e)),
			});
			this.send({ jsonrpc: "2.0", id, method, params });
		});
	}

	/** Calls a tool; its structured answer, or an error. */
	async call(name: string, args: object): Promise<any> {
		if (!(await this.ready)) throw new Error("freshctx is not available");
		const res = await this.request("tools/call", { name, arguments: args });
		if (res?.isError) throw new Error(res.content?.[0]?.text || "freshctx error");
		return res?.structuredContent ?? {};
	}

	close() {
		this.dead = true;
		this.proc.stdin?.end();
		setTimeout(() => this.proc.kill(), 1000).unref();
	}
}

export default function (pi: ExtensionAPI) {
	let client: Client | undefined;
	let clientCwd = "";
	let failedAt = 0;
	// The key this instance recorded last, and the leaf pi stood at then:
	// calls side by side in one assistant message see the same leaf and
	// none of each other's results, so the later follows the earlier.
	let last: { leaf: string | null; tag: Tag } | undefined;
	// Files the model was given or changed by a call freshctx failed to
	// record, told to freshctx with the next call (until then the branch
	// may not show that call's result).
	let unrecorded = { forget: new Set<string>(), edited: new Set<string>() };
	// freshctx's calls go one at a time: each hangs from the one before.
	let queue: Promise<unknown> = Promise.resolve();
	const serial = <T>(f: () => Promise<T>): Promise<T> => {
		const run = queue.then(f, f);
		queue = run.catch(() => {});
		return run;
	};

	const sessionName = (ctx: ExtensionContext) => "pi-" + ctx.sessionManager.getSessionId();

	const connect = (ctx: ExtensionContext): Client | undefined => {
		if (client && !client.dead && clientCwd === ctx.cwd) return client;
		if (Date.now() - failedAt < 30_000) return undefined; // not again at once
		client?.close();
		clientCwd = ctx.cwd;
		client = new Client(ctx.cwd);
		client.ready.then((ok) => {
			if (!ok) failedAt = Date.now();
		});
		return client;
	};

	/** Where the model stands on pi's tree, as freshctx is told it. */
	const position = (ctx: ExtensionContext) => {
		const session = sessionName(ctx);
		const leaf = ctx.sessionManager.getLeafId();
		const pending = { forget: [...unrecorded.forget], edited_paths: [...unrecorded.edited] };
		if (last && last.leaf === leaf && last.tag.session === session) {
			return { follow: true, from: last.tag.session, anchor: last.tag.key, ...pending };
		}
		const branch = ctx.sessionManager.getBranch() as any[];
		let start = 0;
		branch.forEach((e, i) => {
			if (e.type === "compaction") start = i + 1;
		});
		const calls = new Map<string, { name: string; path?: string; at: number }>();
		let anchor: Tag | undefined;
		let anchorAt = -1; // the assistant message (or entry) the anchor came from
		for (let i = start; i < branch.length; i++) {
			const e = branch[i];
			if (e.type === "custom" && e.customType === TAG && e.data?.key) {
				anchor = e.data;
				anchorAt = i;
				continue;
			}
			const m = e.type === "message" ? e.message : undefined;
			if (m?.role === "assistant") {
				for (const c of m.content ?? []) {
					if (c.type === "toolCall") calls.set(c.id, { name: c.name, path: c.arguments?.path, at: i });
				}
			}
			const tag: Tag | undefined = m?.role === "toolResult" ? m.details?.[TAG] : undefined;
			if (tag?.key) {
				const at = calls.get(m.toolCallId)?.at ?? i;
				if (at > anchorAt || (at === anchorAt && (anchor?.entry ?? 0) < tag.entry)) {
					anchor = tag;
					anchorAt = at;
				}
			}
		}
		// What reached the model after the anchor without freshctx recording it.
		const forget: string[] = [];
		const edited: string[] = [];
		for (let i = Math.max(start, anchorAt + 1); i < branch.length; i++) {
			const m = branch[i].type === "message" ? branch[i].message : undefined;
			if (m?.role !== "toolResult" || m.details?.[TAG]?.key) continue;
			const call = calls.get(m.toolCallId);
			if (!call?.path) continue;
			if (m.toolName === "read") forget.push(call.path);
			if (m.toolName === "edit" || m.toolName === "write") edited.push(call.path);
		}
		return {
			follow: true,
			from: anchor?.session ?? session,
			anchor: anchor?.key ?? "",
			forget: [...forget, ...pending.forget],
			edited_paths: [...edited, ...pending.edited_paths],
		};
	};

	// remember keeps the tag of a call freshctx recorded; the files told
	// with it as unrecorded are known to freshctx now.
	const remember = (ctx: ExtensionContext, key: string, entry: number, leaf: string | null): Tag => {
		const tag = { session: sessionName(ctx), key, entry };
		last = { leaf, tag };
		unrecorded = { forget: new Set(), edited: new Set() };
		return tag;
	};

	const base = createReadToolDefinition(process.cwd());
	pi.registerTool({
		...base,
		async execute(toolCallId, params, signal, onUpdate, ctx) {
			const result = await createReadToolDefinition(ctx.cwd).execute(toolCallId, params, signal, onUpdate, ctx);
			const c = connect(ctx);
			if (!c) {
				unrecorded.forget.add((params as any).path);
				return result;
			}
			const leaf = ctx.sessionManager.getLeafId();
			try {
				return await serial(async () => {
					const { answer, notice } = await recordRead(c, ctx, toolCallId, params as any, result);
					if (!answer) return result;
					const tag = remember(ctx, toolCallId, answer.entry ?? answer.leaf ?? 0, leaf);
					const details = { ...(result.details ?? {}), [TAG]: tag };
					if (REPLACING.has(answer.mode)) {
						// pi's hint to read on ("[Showing lines 1-2000 of 2100. Use offset=2001 …]") stays.
						return { content: [{ type: "text", text: answer.text + notice }], details } as any;
					}
					return { ...result, details } as any;
				});
			} catch {
				unrecorded.forget.add((params as any).path); // pi's own answer stands: the next call forgets what it showed
				return result;
			}
		},
	});

	/** Records what pi's read delivered; freshctx's answer, if it had one. */
	const recordRead = async (c: Client, ctx: ExtensionContext, key: string, params: { path: string; offset?: number; limit?: number }, result: any) => {
		const content = result?.content ?? [];
		const truncation = result?.details?.truncation;
		const session = sessionName(ctx);
		if (content.length !== 1 || content[0].type !== "text" || truncation?.firstLineExceedsLimit) {
			// An image, or a line too long to show: the model holds
			// something of the file that is not its lines.
			return { answer: await c.call("session_refresh", { path: params.path, session, ...position(ctx), key }), notice: "" };
		}
		const text: string = content[0].text;
		let seen = truncation?.truncated ? truncation.content : text;
		if (!truncation?.truncated && params.limit !== undefined) {
			seen = seen.replace(/\n\n\[\d+ more lines in file\. Use offset=\d+ to continue\.\]$/, "");
		}
		const notice = text.startsWith(seen) ? text.slice(seen.length) : "";
		const offset = params.offset ? Math.max(1, Math.floor(params.offset)) : 1;
		const args: any = { path: params.path, session, ...position(ctx), key, seen, form: "pi" };
		if (offset > 1 || truncation?.truncated || params.limit !== undefined) {
			args.offset = offset;
			args.limit = seen.split("\n").length;
		}
		return { answer: await c.call("read", args), notice };
	};

	pi.on("tool_result", async (event, ctx) => {
		if (event.toolName !== "edit" && event.toolName !== "write") return;
		const path = (event.input as any)?.path;
		if (!path) return;
		const c = connect(ctx);
		if (!c) {
			unrecorded.edited.add(path);
			return;
		}
		const leaf = ctx.sessionManager.getLeafId();
		try {
			const res = await serial(() =>
				c.call("session_refresh", { path, session: sessionName(ctx), ...position(ctx), key: event.toolCallId, edited: true }),
			);
			const tag = remember(ctx, event.toolCallId, res.leaf ?? 0, leaf);
			return { details: { ...((event as any).details ?? {}), [TAG]: tag } };
		} catch {
			unrecorded.edited.add(path); // untagged: the next call marks the file edited
			return;
		}
	});

	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash") return;
		const command = (event.input as any)?.command;
		if (typeof command !== "string") return;
		const words = routedWords(ctx.cwd);
		if (words && !words.some((w) => startsAWord(command, w))) return;
		const routed = await route(command, ctx);
		if (routed) (event.input as any).command = routed;
	});

	/** The bash line with its tests and builds run through freshctx, or "". */
	const route = (command: string, ctx: ExtensionContext) =>
		new Promise<string>((resolve) => {
			let out = "";
			const p = spawn(BIN, ["hook", "pi"], { cwd: ctx.cwd, stdio: ["pipe", "pipe", "ignore"] });
			const timer = setTimeout(() => (p.kill(), resolve("")), TIMEOUT_MS);
			p.on("error", () => (clearTimeout(timer), resolve("")));
			p.stdout.setEncoding("utf8");
			p.stdout.on("data", (d: string) => (out += d));
			p.on("close", () => {
				clearTimeout(timer);
				try {
					resolve(JSON.parse(out)?.hookSpecificOutput?.updatedInput?.command ?? "");
				} catch {
					resolve("");
				}
			});
			p.stdin.on("error", () => {});
			p.stdin.end(JSON.stringify({
				hook_event_name: "PreToolUse",
				tool_name: "Bash",
				tool_input: { command },
				cwd: ctx.cwd,
				session_id: ctx.sessionManager.getSessionId(),
			}));
		});

	const refresh = async (ctx: ExtensionContext, target: string, key: string) => {
		const c = connect(ctx);
		if (!c) throw new Error("freshctx is not available");
		const leaf = ctx.sessionManager.getLeafId();
		const res = await serial(() => c.call("session_refresh", { path: target, session: sessionName(ctx), ...position(ctx), key }));
		return remember(ctx, key, res.leaf ?? res.entry ?? 0, leaf);
	};

	pi.registerTool({
		name: "readcache_refresh",
		label: "readcache refresh",
		description: "Make the next read of a file (or of lines START-END of it) return its content instead of an unchanged note or a diff.",
		parameters: Type.Object({
			path: Type.String({ description: "Path to the file" }),
			start: Type.Optional(Type.Number({ description: "First line of the range (1-indexed)" })),
			end: Type.Optional(Type.Number({ description: "Last line of the range" })),
		}),
		async execute(toolCallId, params: any, _signal, _onUpdate, ctx) {
			const range = params.start ? `:${params.start}-${params.end ?? ""}` : "";
			const tag = await refresh(ctx, params.path + range, toolCallId);
			return { content: [{ type: "text", text: `The next read of ${params.path}${range} returns its content.` }], details: { [TAG]: tag } };
		},
	});

	pi.registerCommand("readcache-refresh", {
		description: "Make the next read of PATH [START-END] return content (freshctx)",
		handler: async (args, ctx) => {
			const [path, range] = (args || "").trim().split(/\s+/);
			if (!path) return ctx.ui.notify("usage: /readcache-refresh PATH [START-END]", "error");
			try {
				const tag = await refresh(ctx, range ? `${path}:${range}` : path, `command-${Date.now()}`);
				pi.appendEntry(TAG, tag);
				ctx.ui.notify(`freshctx: the next read of ${path}${range ? ":" + range : ""} returns content`, "info");
			} catch (e: any) {
				ctx.ui.notify(`freshctx: ${e.message}`, "error");
			}
		},
	});

	pi.registerCommand("readcache-status", {
		description: "What the read cache trusts in this session, and the tokens it saved (freshctx)",
		handler: async (_args, ctx) => {
			const c = connect(ctx);
			try {
				if (!c) throw new Error("freshctx is not available");
				const res = await c.request("tools/call", { name: "session_status", arguments: { session: sessionName(ctx) } });
				ctx.ui.notify(res?.content?.[0]?.text ?? "freshctx: no status", "info");
			} catch (e: any) {
				ctx.ui.notify(`freshctx: ${e.message}`, "error");
			}
		},
	});

	pi.on("session_start", async (_event, ctx) => {
		last = undefined;
		unrecorded = { forget: new Set(), edited: new Set() };
		connect(ctx);
	});

	pi.on("session_shutdown", async () => {
		client?.close();
		client = undefined;
		last = undefined;
	});
}

// The store keeps hooks.run_commands in a file beside it, its first line
// this header, for a hook to read without opening the store.
const MIRROR_HEADER = "# freshctx: hooks.run_commands of the store beside this file; rewritten as the setting changes\n";
let mirrorSeen: { path: string; mtimeMs: number; size: number; words: string[] } | null = null;

/**
 * The first words of the commands freshctx routes, from the mirror of
 * hooks.run_commands beside the store freshctx would use in cwd (the git
 * work tree's root, else cwd; FRESHCTX_ROOT or FRESHCTX_STORE when set),
 * read again whenever the file changes; null when there is none to go by,
 * and then every line asks freshctx. A line none of whose words is one of
 * these holds no command freshctx would route: the words are wider than
 * the routing, never narrower.
 */
function routedWords(cwd: string): string[] | null {
	let path: string;
	if (process.env.FRESHCTX_STORE) {
		path = resolve(cwd, process.env.FRESHCTX_STORE) + "-run-commands";
	} else {
		const root = process.env.FRESHCTX_ROOT ? resolve(cwd, process.env.FRESHCTX_ROOT) : workTreeRoot(cwd);
		path = join(root, ".freshctx", "freshctx.db-run-commands");
	}
	try {
		const st = statSync(path);
		if (mirrorSeen && mirrorSeen.path === path && mirrorSeen.mtimeMs === st.mtimeMs && mirrorSeen.size === st.size) {
			return mirrorSeen.words;
		}
		const text = readFileSync(path, "utf8");
		if (!text.startsWith(MIRROR_HEADER)) return null;
		const words = text
			.slice(MIRROR_HEADER.length)
			.split(",")
			.map((c) => c.trim().split(/\s+/)[0])
			.filter((w) => w);
		mirrorSeen = { path, mtimeMs: st.mtimeMs, size: st.size, words };
		return words;
	} catch {
		return null;
	}
}

/** The folder holding .git at or above cwd, else cwd: freshctx's root. */
function workTreeRoot(cwd: string): string {
	for (let dir = resolve(cwd); ; dir = dirname(dir)) {
		try {
			statSync(join(dir, ".git"));
			return dir;
		} catch {}
		if (dirname(dir) === dir) return resolve(cwd);
	}
}

/** Whether word is in line where a word starts (not after a letter, digit or _). */
function startsAWord(line: string, word: string): boolean {
	for (let i = line.indexOf(word); i >= 0; i = line.indexOf(word, i + 1)) {
		if (i === 0 || !/[A-Za-z0-9_]/.test(line[i - 1])) return true;
	}
	return false;
}
