// The web chat's hub side: connection, signers and the chat helpers.
export { HubConnection } from './connection.js'
export { HubError } from './errors.js'
export { parseInvite, joinRequest } from './invite.js'
export { localSigner, nip07Signer } from './signer.js'
export * from './chat.js'
