// The helpers a chat page needs over a HubConnection and a ChatModel, in one place.
export * from './history.js'
export * from './readstate.js'
export * from './send.js'
export { feedFilters, follow } from './follow.js'
export { watchAgent, WATCH_RENEW } from './observer.js'
export { Outbox, SEND_TIMEOUT } from './outbox.js'
