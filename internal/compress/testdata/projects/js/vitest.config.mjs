export default { test: { include: ["vitest/**/*.test.mjs"] } };
