import { AudioRpc } from './audio/subjects';
import { BillingEvents, BillingRpc } from './billing/subjects';
import { CharactersRpc } from './characters/subjects';
import { ChatRpc } from './chat/subjects';
import { CryptoRpcRpc } from './crypto-rpc/subjects';
import { AugmentRpc } from './augment/subjects';
import { EmbeddingsRpc } from './embeddings/subjects';
import { HealthReply, HealthRequest, HealthSubject } from './health/health';
import { KeysEvents, KeysRpc } from './keys/subjects';
import { MediaRpc } from './media/subjects';
import { ModerationsRpc } from './moderations/subjects';
import { VideoRpc } from './video/subjects';
import { WalletAuthRpc } from './wallet-auth/subjects';
import { X402Rpc } from './x402/subjects';

export type HealthRpc = Record<HealthSubject, { req: HealthRequest; res: HealthReply }>;

/** Every request/reply subject with its request and reply types. */
export type RpcMap = KeysRpc &
  ChatRpc &
  BillingRpc &
  HealthRpc &
  MediaRpc &
  CharactersRpc &
  AudioRpc &
  EmbeddingsRpc &
  ModerationsRpc &
  AugmentRpc &
  X402Rpc &
  WalletAuthRpc &
  VideoRpc &
  CryptoRpcRpc;
export type RpcSubject = keyof RpcMap;
export type RpcRequest<S extends RpcSubject> = RpcMap[S]['req'];
export type RpcReply<S extends RpcSubject> = RpcMap[S]['res'];

/** Every fire-and-forget event subject with its payload type. */
export type EventMap = KeysEvents & BillingEvents;
export type EventSubject = keyof EventMap;
