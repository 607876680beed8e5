// The chat model for the web chat (spec/chat.md): a port of client/chat
// that runs the same fixtures (spec/fixtures) in Node and in the browser.
export { ChatModel, isOverlay } from './model.js'
export { Names, cleanName, foldName } from './names.js'
export { Live, PRESENCE_TTL, TYPING_TTL, FROM_OBSERVER, FROM_TYPING } from './live.js'
export * from './kinds.js'
export * from './position.js'
export { Transcript } from './transcript.js'
export { quoteLine } from './quote.js'
export { runWords } from './runs.js'
export { shortNpub } from '../keys/index.js'
