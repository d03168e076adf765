import { readFileSync } from 'node:fs';
import { ClnRestBackend } from '../../chains/lightning/cln-rest-backend.js';
import type { LightningBackend } from '../../chains/lightning/lightning-backend.js';
import { LndRestBackend } from '../../chains/lightning/lnd-rest-backend.js';
import { ProviderConfigError, type LightningConfig } from './provider-config.js';

/**
 * The Lightning backend the configuration names, its credential and certificate read from their
 * files: LND's macaroon as the file's bytes (sent as hex), Core Lightning's rune as the file's text.
 * An unreadable file is named by its field, never by its content; the node's refusals name the files.
 */
export function openLightningBackend(config: LightningConfig): LightningBackend {
  const certificatePem = readText(config.tlsCertFile, 'lightning.tlsCertFile');
  if (config.kind === 'lnd') {
    return new LndRestBackend({
      url: config.url,
      certificatePem,
      macaroonHex: read(config.macaroonFile, 'lightning.macaroonFile').toString('hex'),
      certificateFile: config.tlsCertFile,
      macaroonFile: config.macaroonFile,
    });
  }
  return new ClnRestBackend({
    url: config.url,
    certificatePem,
    rune: readText(config.runeFile, 'lightning.runeFile').trim(),
    certificateFile: config.tlsCertFile,
    runeFile: config.runeFile,
  });
}

function read(path: string, field: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ProviderConfigError(
      field,
      `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
}

function readText(path: string, field: string): string {
  return read(path, field).toString('utf8');
}
