import { createSocket, RemoteInfo, Socket } from 'node:dgram';
import { ATTRIBUTE, CODE, readRequest, replyPacket, ReplySpec } from './radius-replies';

/** A forged Access-Accept sent ahead of the genuine reply, each as an attacker or a misconfigured server would. */
export type Forgery = 'other_port' | 'wrong_identifier' | 'no_message_authenticator' | 'wrong_message_authenticator' | 'wrong_response_authenticator';

/**
 * What stands where the service expects its RADIUS server, on a loopback port: it keeps every datagram it
 * receives, and either says nothing (a silent server: down, firewalled, or one that drops requests signed
 * with another secret), or, before relaying the request to the real FreeRADIUS and its genuine reply back,
 * answers with the forged Access-Accepts of `forgeries` (each claiming superuser rights through Class).
 */
export class RadiusStandIn {
  readonly received: Buffer[] = [];
  forgeries: Forgery[] = [];
  /** Where requests are relayed (FreeRADIUS's port); undefined: silent. */
  relayTo?: number;
  private readonly socket: Socket = createSocket('udp4');
  private readonly other: Socket = createSocket('udp4');
  port = 0;

  constructor(private readonly secret: string) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => this.other.bind(0, '127.0.0.1', resolve));
    this.port = this.socket.address().port;
    this.socket.on('message', (datagram, from) => this.answer(datagram, from));
  }

  close(): void {
    this.socket.close();
    this.other.close();
  }

  private answer(datagram: Buffer, from: RemoteInfo): void {
    this.received.push(Buffer.from(datagram));
    if (this.relayTo === undefined) return;
    const request = readRequest(datagram);
    const forged = (spec: Partial<ReplySpec>) =>
      replyPacket({
        code: CODE.accessAccept,
        identifier: request.identifier,
        requestAuthenticator: request.authenticator,
        secret: this.secret,
        attributes: [[ATTRIBUTE.class, 'awx-admins']],
        ...spec,
      });
    for (const forgery of this.forgeries) {
      if (forgery === 'other_port') this.other.send(forged({}), from.port, from.address);
      if (forgery === 'wrong_identifier') this.socket.send(forged({ identifier: (request.identifier + 1) % 256 }), from.port, from.address);
      if (forgery === 'no_message_authenticator') this.socket.send(forged({ messageAuthenticator: 'none' }), from.port, from.address);
      if (forgery === 'wrong_message_authenticator') this.socket.send(forged({ messageAuthenticator: 'wrong' }), from.port, from.address);
      if (forgery === 'wrong_response_authenticator') this.socket.send(forged({ responseAuthenticator: 'wrong' }), from.port, from.address);
    }
    // The genuine answer comes last, through a socket of its own towards FreeRADIUS.
    const relay = createSocket('udp4');
    relay.on('message', (reply) => {
      relay.close();
      this.socket.send(reply, from.port, from.address);
    });
    relay.send(datagram, this.relayTo, '127.0.0.1');
  }
}
