import {
  LightningNodeError,
  type LightningBackend,
  type LightningNodeFault,
} from '../../chains/lightning/lightning-backend.js';

/**
 * The node, with every call that failed with a LightningNodeError counted by its fault (`countFault`) before the
 * error goes on to the caller unchanged: a wrong certificate and a dead node show apart in the metrics.
 */
export function faultCountingLightning(
  lightning: LightningBackend,
  countFault: (fault: LightningNodeFault) => void,
): LightningBackend {
  const counted = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      if (error instanceof LightningNodeError) countFault(error.fault);
      throw error;
    }
  };
  return {
    kind: lightning.kind,
    getInfo: () => counted(lightning.getInfo()),
    spendableMillisatoshis: () => counted(lightning.spendableMillisatoshis()),
    estimateRoute: (payee, amount) => counted(lightning.estimateRoute(payee, amount)),
    pay: (request) => counted(lightning.pay(request)),
    lookupPayment: (paymentHash) => counted(lightning.lookupPayment(paymentHash)),
  };
}
