// Builds the admin console into web/dist, which the server serves at `/`.
// Invoke from the repository root: `npm run build:web` (vite build --config web/vite.config.ts).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

const root = fileURLToPath(new URL('.', import.meta.url))

export default defineConfig(({ command }) => {
  // The server may build from inside `bun test` (NODE_ENV=test): a build always ships React's production
  // runtime and JSX transform.
  if (command === 'build') process.env.NODE_ENV = 'production'
  return {
    root,
    base: '/',
    plugins: [react()],
    build: {
      outDir: fileURLToPath(new URL('./dist', import.meta.url)),
      emptyOutDir: true,
      sourcemap: false,
    },
    server: {
      // `vite --config web/vite.config.ts` for UI work against a server on :8080
      proxy: { '/api': 'http://127.0.0.1:8080' },
    },
  }
})
