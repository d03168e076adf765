// Built by `npm run build:pay-page` from web/pay/: edit those files, not this one.
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJS = (cb, mod) => function __require() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// ../../main/node_modules/light-bolt11-decoder/node_modules/@scure/base/lib/index.js
var require_lib = __commonJS({
  "../../main/node_modules/light-bolt11-decoder/node_modules/@scure/base/lib/index.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    exports.bytes = exports.stringToBytes = exports.str = exports.bytesToString = exports.hex = exports.utf8 = exports.bech32m = exports.bech32 = exports.base58check = exports.base58xmr = exports.base58xrp = exports.base58flickr = exports.base58 = exports.base64url = exports.base64 = exports.base32crockford = exports.base32hex = exports.base32 = exports.base16 = exports.utils = exports.assertNumber = void 0;
    function assertNumber(n) {
      if (!Number.isSafeInteger(n))
        throw new Error(`Wrong integer: ${n}`);
    }
    exports.assertNumber = assertNumber;
    function chain(...args) {
      const wrap = (a, b) => (c) => a(b(c));
      const encode = Array.from(args).reverse().reduce((acc, i) => acc ? wrap(acc, i.encode) : i.encode, void 0);
      const decode2 = args.reduce((acc, i) => acc ? wrap(acc, i.decode) : i.decode, void 0);
      return { encode, decode: decode2 };
    }
    function alphabet(alphabet2) {
      return {
        encode: (digits) => {
          if (!Array.isArray(digits) || digits.length && typeof digits[0] !== "number")
            throw new Error("alphabet.encode input should be an array of numbers");
          return digits.map((i) => {
            assertNumber(i);
            if (i < 0 || i >= alphabet2.length)
              throw new Error(`Digit index outside alphabet: ${i} (alphabet: ${alphabet2.length})`);
            return alphabet2[i];
          });
        },
        decode: (input) => {
          if (!Array.isArray(input) || input.length && typeof input[0] !== "string")
            throw new Error("alphabet.decode input should be array of strings");
          return input.map((letter) => {
            if (typeof letter !== "string")
              throw new Error(`alphabet.decode: not string element=${letter}`);
            const index = alphabet2.indexOf(letter);
            if (index === -1)
              throw new Error(`Unknown letter: "${letter}". Allowed: ${alphabet2}`);
            return index;
          });
        }
      };
    }
    function join(separator = "") {
      if (typeof separator !== "string")
        throw new Error("join separator should be string");
      return {
        encode: (from) => {
          if (!Array.isArray(from) || from.length && typeof from[0] !== "string")
            throw new Error("join.encode input should be array of strings");
          for (let i of from)
            if (typeof i !== "string")
              throw new Error(`join.encode: non-string input=${i}`);
          return from.join(separator);
        },
        decode: (to) => {
          if (typeof to !== "string")
            throw new Error("join.decode input should be string");
          return to.split(separator);
        }
      };
    }
    function padding(bits, chr = "=") {
      assertNumber(bits);
      if (typeof chr !== "string")
        throw new Error("padding chr should be string");
      return {
        encode(data) {
          if (!Array.isArray(data) || data.length && typeof data[0] !== "string")
            throw new Error("padding.encode input should be array of strings");
          for (let i of data)
            if (typeof i !== "string")
              throw new Error(`padding.encode: non-string input=${i}`);
          while (data.length * bits % 8)
            data.push(chr);
          return data;
        },
        decode(input) {
          if (!Array.isArray(input) || input.length && typeof input[0] !== "string")
            throw new Error("padding.encode input should be array of strings");
          for (let i of input)
            if (typeof i !== "string")
              throw new Error(`padding.decode: non-string input=${i}`);
          let end = input.length;
          if (end * bits % 8)
            throw new Error("Invalid padding: string should have whole number of bytes");
          for (; end > 0 && input[end - 1] === chr; end--) {
            if (!((end - 1) * bits % 8))
              throw new Error("Invalid padding: string has too much padding");
          }
          return input.slice(0, end);
        }
      };
    }
    function normalize(fn) {
      if (typeof fn !== "function")
        throw new Error("normalize fn should be function");
      return { encode: (from) => from, decode: (to) => fn(to) };
    }
    function convertRadix(data, from, to) {
      if (from < 2)
        throw new Error(`convertRadix: wrong from=${from}, base cannot be less than 2`);
      if (to < 2)
        throw new Error(`convertRadix: wrong to=${to}, base cannot be less than 2`);
      if (!Array.isArray(data))
        throw new Error("convertRadix: data should be array");
      if (!data.length)
        return [];
      let pos = 0;
      const res = [];
      const digits = Array.from(data);
      digits.forEach((d) => {
        assertNumber(d);
        if (d < 0 || d >= from)
          throw new Error(`Wrong integer: ${d}`);
      });
      while (true) {
        let carry = 0;
        let done = true;
        for (let i = pos; i < digits.length; i++) {
          const digit = digits[i];
          const digitBase = from * carry + digit;
          if (!Number.isSafeInteger(digitBase) || from * carry / from !== carry || digitBase - digit !== from * carry) {
            throw new Error("convertRadix: carry overflow");
          }
          carry = digitBase % to;
          digits[i] = Math.floor(digitBase / to);
          if (!Number.isSafeInteger(digits[i]) || digits[i] * to + carry !== digitBase)
            throw new Error("convertRadix: carry overflow");
          if (!done)
            continue;
          else if (!digits[i])
            pos = i;
          else
            done = false;
        }
        res.push(carry);
        if (done)
          break;
      }
      for (let i = 0; i < data.length - 1 && data[i] === 0; i++)
        res.push(0);
      return res.reverse();
    }
    var gcd = (a, b) => !b ? a : gcd(b, a % b);
    var radix2carry = (from, to) => from + (to - gcd(from, to));
    function convertRadix2(data, from, to, padding2) {
      if (!Array.isArray(data))
        throw new Error("convertRadix2: data should be array");
      if (from <= 0 || from > 32)
        throw new Error(`convertRadix2: wrong from=${from}`);
      if (to <= 0 || to > 32)
        throw new Error(`convertRadix2: wrong to=${to}`);
      if (radix2carry(from, to) > 32) {
        throw new Error(`convertRadix2: carry overflow from=${from} to=${to} carryBits=${radix2carry(from, to)}`);
      }
      let carry = 0;
      let pos = 0;
      const mask = 2 ** to - 1;
      const res = [];
      for (const n of data) {
        assertNumber(n);
        if (n >= 2 ** from)
          throw new Error(`convertRadix2: invalid data word=${n} from=${from}`);
        carry = carry << from | n;
        if (pos + from > 32)
          throw new Error(`convertRadix2: carry overflow pos=${pos} from=${from}`);
        pos += from;
        for (; pos >= to; pos -= to)
          res.push((carry >> pos - to & mask) >>> 0);
        carry &= 2 ** pos - 1;
      }
      carry = carry << to - pos & mask;
      if (!padding2 && pos >= from)
        throw new Error("Excess padding");
      if (!padding2 && carry)
        throw new Error(`Non-zero padding: ${carry}`);
      if (padding2 && pos > 0)
        res.push(carry >>> 0);
      return res;
    }
    function radix(num) {
      assertNumber(num);
      return {
        encode: (bytes) => {
          if (!(bytes instanceof Uint8Array))
            throw new Error("radix.encode input should be Uint8Array");
          return convertRadix(Array.from(bytes), 2 ** 8, num);
        },
        decode: (digits) => {
          if (!Array.isArray(digits) || digits.length && typeof digits[0] !== "number")
            throw new Error("radix.decode input should be array of strings");
          return Uint8Array.from(convertRadix(digits, num, 2 ** 8));
        }
      };
    }
    function radix2(bits, revPadding = false) {
      assertNumber(bits);
      if (bits <= 0 || bits > 32)
        throw new Error("radix2: bits should be in (0..32]");
      if (radix2carry(8, bits) > 32 || radix2carry(bits, 8) > 32)
        throw new Error("radix2: carry overflow");
      return {
        encode: (bytes) => {
          if (!(bytes instanceof Uint8Array))
            throw new Error("radix2.encode input should be Uint8Array");
          return convertRadix2(Array.from(bytes), 8, bits, !revPadding);
        },
        decode: (digits) => {
          if (!Array.isArray(digits) || digits.length && typeof digits[0] !== "number")
            throw new Error("radix2.decode input should be array of strings");
          return Uint8Array.from(convertRadix2(digits, bits, 8, revPadding));
        }
      };
    }
    function unsafeWrapper(fn) {
      if (typeof fn !== "function")
        throw new Error("unsafeWrapper fn should be function");
      return function(...args) {
        try {
          return fn.apply(null, args);
        } catch (e) {
        }
      };
    }
    function checksum(len, fn) {
      assertNumber(len);
      if (typeof fn !== "function")
        throw new Error("checksum fn should be function");
      return {
        encode(data) {
          if (!(data instanceof Uint8Array))
            throw new Error("checksum.encode: input should be Uint8Array");
          const checksum2 = fn(data).slice(0, len);
          const res = new Uint8Array(data.length + len);
          res.set(data);
          res.set(checksum2, data.length);
          return res;
        },
        decode(data) {
          if (!(data instanceof Uint8Array))
            throw new Error("checksum.decode: input should be Uint8Array");
          const payload = data.slice(0, -len);
          const newChecksum = fn(payload).slice(0, len);
          const oldChecksum = data.slice(-len);
          for (let i = 0; i < len; i++)
            if (newChecksum[i] !== oldChecksum[i])
              throw new Error("Invalid checksum");
          return payload;
        }
      };
    }
    exports.utils = { alphabet, chain, checksum, radix, radix2, join, padding };
    exports.base16 = chain(radix2(4), alphabet("0123456789ABCDEF"), join(""));
    exports.base32 = chain(radix2(5), alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), padding(5), join(""));
    exports.base32hex = chain(radix2(5), alphabet("0123456789ABCDEFGHIJKLMNOPQRSTUV"), padding(5), join(""));
    exports.base32crockford = chain(radix2(5), alphabet("0123456789ABCDEFGHJKMNPQRSTVWXYZ"), join(""), normalize((s) => s.toUpperCase().replace(/O/g, "0").replace(/[IL]/g, "1")));
    exports.base64 = chain(radix2(6), alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"), padding(6), join(""));
    exports.base64url = chain(radix2(6), alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), padding(6), join(""));
    var genBase58 = (abc) => chain(radix(58), alphabet(abc), join(""));
    exports.base58 = genBase58("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz");
    exports.base58flickr = genBase58("123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ");
    exports.base58xrp = genBase58("rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz");
    var XMR_BLOCK_LEN = [0, 2, 3, 5, 6, 7, 9, 10, 11];
    exports.base58xmr = {
      encode(data) {
        let res = "";
        for (let i = 0; i < data.length; i += 8) {
          const block = data.subarray(i, i + 8);
          res += exports.base58.encode(block).padStart(XMR_BLOCK_LEN[block.length], "1");
        }
        return res;
      },
      decode(str) {
        let res = [];
        for (let i = 0; i < str.length; i += 11) {
          const slice = str.slice(i, i + 11);
          const blockLen = XMR_BLOCK_LEN.indexOf(slice.length);
          const block = exports.base58.decode(slice);
          for (let j = 0; j < block.length - blockLen; j++) {
            if (block[j] !== 0)
              throw new Error("base58xmr: wrong padding");
          }
          res = res.concat(Array.from(block.slice(block.length - blockLen)));
        }
        return Uint8Array.from(res);
      }
    };
    var base58check = (sha256) => chain(checksum(4, (data) => sha256(sha256(data))), exports.base58);
    exports.base58check = base58check;
    var BECH_ALPHABET = chain(alphabet("qpzry9x8gf2tvdw0s3jn54khce6mua7l"), join(""));
    var POLYMOD_GENERATORS = [996825010, 642813549, 513874426, 1027748829, 705979059];
    function bech32Polymod(pre) {
      const b = pre >> 25;
      let chk = (pre & 33554431) << 5;
      for (let i = 0; i < POLYMOD_GENERATORS.length; i++) {
        if ((b >> i & 1) === 1)
          chk ^= POLYMOD_GENERATORS[i];
      }
      return chk;
    }
    function bechChecksum(prefix, words, encodingConst = 1) {
      const len = prefix.length;
      let chk = 1;
      for (let i = 0; i < len; i++) {
        const c = prefix.charCodeAt(i);
        if (c < 33 || c > 126)
          throw new Error(`Invalid prefix (${prefix})`);
        chk = bech32Polymod(chk) ^ c >> 5;
      }
      chk = bech32Polymod(chk);
      for (let i = 0; i < len; i++)
        chk = bech32Polymod(chk) ^ prefix.charCodeAt(i) & 31;
      for (let v of words)
        chk = bech32Polymod(chk) ^ v;
      for (let i = 0; i < 6; i++)
        chk = bech32Polymod(chk);
      chk ^= encodingConst;
      return BECH_ALPHABET.encode(convertRadix2([chk % 2 ** 30], 30, 5, false));
    }
    function genBech32(encoding) {
      const ENCODING_CONST = encoding === "bech32" ? 1 : 734539939;
      const _words = radix2(5);
      const fromWords = _words.decode;
      const toWords = _words.encode;
      const fromWordsUnsafe = unsafeWrapper(fromWords);
      function encode(prefix, words, limit = 90) {
        if (typeof prefix !== "string")
          throw new Error(`bech32.encode prefix should be string, not ${typeof prefix}`);
        if (!Array.isArray(words) || words.length && typeof words[0] !== "number")
          throw new Error(`bech32.encode words should be array of numbers, not ${typeof words}`);
        const actualLength = prefix.length + 7 + words.length;
        if (limit !== false && actualLength > limit)
          throw new TypeError(`Length ${actualLength} exceeds limit ${limit}`);
        prefix = prefix.toLowerCase();
        return `${prefix}1${BECH_ALPHABET.encode(words)}${bechChecksum(prefix, words, ENCODING_CONST)}`;
      }
      function decode2(str, limit = 90) {
        if (typeof str !== "string")
          throw new Error(`bech32.decode input should be string, not ${typeof str}`);
        if (str.length < 8 || limit !== false && str.length > limit)
          throw new TypeError(`Wrong string length: ${str.length} (${str}). Expected (8..${limit})`);
        const lowered = str.toLowerCase();
        if (str !== lowered && str !== str.toUpperCase())
          throw new Error(`String must be lowercase or uppercase`);
        str = lowered;
        const sepIndex = str.lastIndexOf("1");
        if (sepIndex === 0 || sepIndex === -1)
          throw new Error(`Letter "1" must be present between prefix and data only`);
        const prefix = str.slice(0, sepIndex);
        const _words2 = str.slice(sepIndex + 1);
        if (_words2.length < 6)
          throw new Error("Data must be at least 6 characters long");
        const words = BECH_ALPHABET.decode(_words2).slice(0, -6);
        const sum = bechChecksum(prefix, words, ENCODING_CONST);
        if (!_words2.endsWith(sum))
          throw new Error(`Invalid checksum in ${str}: expected "${sum}"`);
        return { prefix, words };
      }
      const decodeUnsafe = unsafeWrapper(decode2);
      function decodeToBytes(str) {
        const { prefix, words } = decode2(str, false);
        return { prefix, words, bytes: fromWords(words) };
      }
      return { encode, decode: decode2, decodeToBytes, decodeUnsafe, fromWords, fromWordsUnsafe, toWords };
    }
    exports.bech32 = genBech32("bech32");
    exports.bech32m = genBech32("bech32m");
    exports.utf8 = {
      encode: (data) => new TextDecoder().decode(data),
      decode: (str) => new TextEncoder().encode(str)
    };
    exports.hex = chain(radix2(4), alphabet("0123456789abcdef"), join(""), normalize((s) => {
      if (typeof s !== "string" || s.length % 2)
        throw new TypeError(`hex.decode: expected string, got ${typeof s} with length ${s.length}`);
      return s.toLowerCase();
    }));
    var CODERS = {
      utf8: exports.utf8,
      hex: exports.hex,
      base16: exports.base16,
      base32: exports.base32,
      base64: exports.base64,
      base64url: exports.base64url,
      base58: exports.base58,
      base58xmr: exports.base58xmr
    };
    var coderTypeError = `Invalid encoding type. Available types: ${Object.keys(CODERS).join(", ")}`;
    var bytesToString = (type, bytes) => {
      if (typeof type !== "string" || !CODERS.hasOwnProperty(type))
        throw new TypeError(coderTypeError);
      if (!(bytes instanceof Uint8Array))
        throw new TypeError("bytesToString() expects Uint8Array");
      return CODERS[type].encode(bytes);
    };
    exports.bytesToString = bytesToString;
    exports.str = exports.bytesToString;
    var stringToBytes = (type, str) => {
      if (!CODERS.hasOwnProperty(type))
        throw new TypeError(coderTypeError);
      if (typeof str !== "string")
        throw new TypeError("stringToBytes() expects string");
      return CODERS[type].decode(str);
    };
    exports.stringToBytes = stringToBytes;
    exports.bytes = exports.stringToBytes;
  }
});

// ../../main/node_modules/light-bolt11-decoder/bolt11.js
var require_bolt11 = __commonJS({
  "../../main/node_modules/light-bolt11-decoder/bolt11.js"(exports, module) {
    var { bech32, hex: hex2, utf8 } = require_lib();
    var DEFAULTNETWORK = {
      // default network is bitcoin
      bech32: "bc",
      pubKeyHash: 0,
      scriptHash: 5,
      validWitnessVersions: [0]
    };
    var TESTNETWORK = {
      bech32: "tb",
      pubKeyHash: 111,
      scriptHash: 196,
      validWitnessVersions: [0]
    };
    var SIGNETNETWORK = {
      bech32: "tbs",
      pubKeyHash: 111,
      scriptHash: 196,
      validWitnessVersions: [0]
    };
    var REGTESTNETWORK = {
      bech32: "bcrt",
      pubKeyHash: 111,
      scriptHash: 196,
      validWitnessVersions: [0]
    };
    var SIMNETWORK = {
      bech32: "sb",
      pubKeyHash: 63,
      scriptHash: 123,
      validWitnessVersions: [0]
    };
    var FEATUREBIT_ORDER = [
      "option_data_loss_protect",
      "initial_routing_sync",
      "option_upfront_shutdown_script",
      "gossip_queries",
      "var_onion_optin",
      "gossip_queries_ex",
      "option_static_remotekey",
      "payment_secret",
      "basic_mpp",
      "option_support_large_channel"
    ];
    var DIVISORS = {
      m: BigInt(1e3),
      u: BigInt(1e6),
      n: BigInt(1e9),
      p: BigInt(1e12)
    };
    var MAX_MILLISATS = BigInt("2100000000000000000");
    var MILLISATS_PER_BTC = BigInt(1e11);
    var TAGCODES = {
      payment_hash: 1,
      payment_secret: 16,
      description: 13,
      payee: 19,
      description_hash: 23,
      // commit to longer descriptions (used by lnurl-pay)
      expiry: 6,
      // default: 3600 (1 hour)
      min_final_cltv_expiry: 24,
      // default: 9
      fallback_address: 9,
      route_hint: 3,
      // for extra routing info (private etc.)
      feature_bits: 5,
      metadata: 27
    };
    var TAGNAMES = {};
    for (let i = 0, keys = Object.keys(TAGCODES); i < keys.length; i++) {
      const currentName = keys[i];
      const currentCode = TAGCODES[keys[i]].toString();
      TAGNAMES[currentCode] = currentName;
    }
    var TAGPARSERS = {
      1: (words) => hex2.encode(bech32.fromWordsUnsafe(words)),
      // 256 bits
      16: (words) => hex2.encode(bech32.fromWordsUnsafe(words)),
      // 256 bits
      13: (words) => utf8.encode(bech32.fromWordsUnsafe(words)),
      // string variable length
      19: (words) => hex2.encode(bech32.fromWordsUnsafe(words)),
      // 264 bits
      23: (words) => hex2.encode(bech32.fromWordsUnsafe(words)),
      // 256 bits
      27: (words) => hex2.encode(bech32.fromWordsUnsafe(words)),
      // variable
      6: wordsToIntBE,
      // default: 3600 (1 hour)
      24: wordsToIntBE,
      // default: 9
      3: routingInfoParser,
      // for extra routing info (private etc.)
      5: featureBitsParser
      // keep feature bits as array of 5 bit words
    };
    function getUnknownParser(tagCode) {
      return (words) => ({
        tagCode: parseInt(tagCode),
        words: bech32.encode("unknown", words, Number.MAX_SAFE_INTEGER)
      });
    }
    function wordsToIntBE(words) {
      return words.reverse().reduce((total, item, index) => {
        return total + item * Math.pow(32, index);
      }, 0);
    }
    function routingInfoParser(words) {
      const routes = [];
      let pubkey, shortChannelId, feeBaseMSats, feeProportionalMillionths, cltvExpiryDelta;
      let routesBuffer = bech32.fromWordsUnsafe(words);
      while (routesBuffer.length > 0) {
        pubkey = hex2.encode(routesBuffer.slice(0, 33));
        shortChannelId = hex2.encode(routesBuffer.slice(33, 41));
        feeBaseMSats = parseInt(hex2.encode(routesBuffer.slice(41, 45)), 16);
        feeProportionalMillionths = parseInt(
          hex2.encode(routesBuffer.slice(45, 49)),
          16
        );
        cltvExpiryDelta = parseInt(hex2.encode(routesBuffer.slice(49, 51)), 16);
        routesBuffer = routesBuffer.slice(51);
        routes.push({
          pubkey,
          short_channel_id: shortChannelId,
          fee_base_msat: feeBaseMSats,
          fee_proportional_millionths: feeProportionalMillionths,
          cltv_expiry_delta: cltvExpiryDelta
        });
      }
      return routes;
    }
    function featureBitsParser(words) {
      const bools = words.slice().reverse().map((word) => [
        !!(word & 1),
        !!(word & 2),
        !!(word & 4),
        !!(word & 8),
        !!(word & 16)
      ]).reduce((finalArr, itemArr) => finalArr.concat(itemArr), []);
      while (bools.length < FEATUREBIT_ORDER.length * 2) {
        bools.push(false);
      }
      const featureBits = {};
      FEATUREBIT_ORDER.forEach((featureName, index) => {
        let status;
        if (bools[index * 2]) {
          status = "required";
        } else if (bools[index * 2 + 1]) {
          status = "supported";
        } else {
          status = "unsupported";
        }
        featureBits[featureName] = status;
      });
      const extraBits = bools.slice(FEATUREBIT_ORDER.length * 2);
      featureBits.extra_bits = {
        start_bit: FEATUREBIT_ORDER.length * 2,
        bits: extraBits,
        has_required: extraBits.reduce(
          (result, bit, index) => index % 2 !== 0 ? result || false : result || bit,
          false
        )
      };
      return featureBits;
    }
    function hrpToMillisat(hrpString, outputString) {
      let divisor, value;
      if (hrpString.slice(-1).match(/^[munp]$/)) {
        divisor = hrpString.slice(-1);
        value = hrpString.slice(0, -1);
      } else if (hrpString.slice(-1).match(/^[^munp0-9]$/)) {
        throw new Error("Not a valid multiplier for the amount");
      } else {
        value = hrpString;
      }
      if (!value.match(/^\d+$/))
        throw new Error("Not a valid human readable amount");
      const valueBN = BigInt(value);
      const millisatoshisBN = divisor ? valueBN * MILLISATS_PER_BTC / DIVISORS[divisor] : valueBN * MILLISATS_PER_BTC;
      if (divisor === "p" && !(valueBN % BigInt(10) === BigInt(0)) || millisatoshisBN > MAX_MILLISATS) {
        throw new Error("Amount is outside of valid range");
      }
      return outputString ? millisatoshisBN.toString() : millisatoshisBN;
    }
    function decode2(paymentRequest, network) {
      if (typeof paymentRequest !== "string")
        throw new Error("Lightning Payment Request must be string");
      if (paymentRequest.slice(0, 2).toLowerCase() !== "ln")
        throw new Error("Not a proper lightning payment request");
      const sections = [];
      const decoded = bech32.decode(paymentRequest, Number.MAX_SAFE_INTEGER);
      paymentRequest = paymentRequest.toLowerCase();
      const prefix = decoded.prefix;
      let words = decoded.words;
      let letters = paymentRequest.slice(prefix.length + 1);
      let sigWords = words.slice(-104);
      words = words.slice(0, -104);
      let prefixMatches = prefix.match(/^ln(\S+?)(\d*)([a-zA-Z]?)$/);
      if (prefixMatches && !prefixMatches[2])
        prefixMatches = prefix.match(/^ln(\S+)$/);
      if (!prefixMatches) {
        throw new Error("Not a proper lightning payment request");
      }
      sections.push({
        name: "lightning_network",
        letters: "ln"
      });
      const bech32Prefix = prefixMatches[1];
      let coinNetwork;
      if (!network) {
        switch (bech32Prefix) {
          case DEFAULTNETWORK.bech32:
            coinNetwork = DEFAULTNETWORK;
            break;
          case TESTNETWORK.bech32:
            coinNetwork = TESTNETWORK;
            break;
          case SIGNETNETWORK.bech32:
            coinNetwork = SIGNETNETWORK;
            break;
          case REGTESTNETWORK.bech32:
            coinNetwork = REGTESTNETWORK;
            break;
          case SIMNETWORK.bech32:
            coinNetwork = SIMNETWORK;
            break;
        }
      } else {
        if (network.bech32 === void 0 || network.pubKeyHash === void 0 || network.scriptHash === void 0 || !Array.isArray(network.validWitnessVersions))
          throw new Error("Invalid network");
        coinNetwork = network;
      }
      if (!coinNetwork || coinNetwork.bech32 !== bech32Prefix) {
        throw new Error("Unknown coin bech32 prefix");
      }
      sections.push({
        name: "coin_network",
        letters: bech32Prefix,
        value: coinNetwork
      });
      const value = prefixMatches[2];
      let millisatoshis;
      if (value) {
        const divisor = prefixMatches[3];
        millisatoshis = hrpToMillisat(value + divisor, true);
        sections.push({
          name: "amount",
          letters: prefixMatches[2] + prefixMatches[3],
          value: millisatoshis
        });
      } else {
        millisatoshis = null;
      }
      sections.push({
        name: "separator",
        letters: "1"
      });
      const timestamp = wordsToIntBE(words.slice(0, 7));
      words = words.slice(7);
      sections.push({
        name: "timestamp",
        letters: letters.slice(0, 7),
        value: timestamp
      });
      letters = letters.slice(7);
      let tagName, parser, tagLength, tagWords;
      while (words.length > 0) {
        const tagCode = words[0].toString();
        tagName = TAGNAMES[tagCode] || "unknown_tag";
        parser = TAGPARSERS[tagCode] || getUnknownParser(tagCode);
        words = words.slice(1);
        tagLength = wordsToIntBE(words.slice(0, 2));
        words = words.slice(2);
        tagWords = words.slice(0, tagLength);
        words = words.slice(tagLength);
        sections.push({
          name: tagName,
          tag: letters[0],
          letters: letters.slice(0, 1 + 2 + tagLength),
          value: parser(tagWords)
          // see: parsers for more comments
        });
        letters = letters.slice(1 + 2 + tagLength);
      }
      sections.push({
        name: "signature",
        letters: letters.slice(0, 104),
        value: hex2.encode(bech32.fromWordsUnsafe(sigWords))
      });
      letters = letters.slice(104);
      sections.push({
        name: "checksum",
        letters
      });
      let result = {
        paymentRequest,
        sections,
        get expiry() {
          let exp = sections.find((s) => s.name === "expiry");
          if (exp) return getValue("timestamp") + exp.value;
        },
        get route_hints() {
          return sections.filter((s) => s.name === "route_hint").map((s) => s.value);
        }
      };
      for (let name in TAGCODES) {
        if (name === "route_hint") {
          continue;
        }
        Object.defineProperty(result, name, {
          get() {
            return getValue(name);
          }
        });
      }
      return result;
      function getValue(name) {
        let section = sections.find((s) => s.name === name);
        return section ? section.value : void 0;
      }
    }
    module.exports = {
      decode: decode2,
      hrpToMillisat
    };
  }
});

// web/pay/main.js
import qrcode2 from "/assets/qrcode.mjs";

// web/dom.js
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === void 0 || value === false) continue;
    if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === void 0 || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}
async function writeClipboard(text) {
  if (navigator.clipboard !== void 0) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const field = h("textarea", { readonly: true, class: "offscreen" }, text);
  document.body.append(field);
  field.select();
  const copied = document.execCommand("copy");
  field.remove();
  if (!copied) throw new Error("copy refused");
}
function copyable(label, value) {
  const feedback = h("span", { class: "copy-feedback", role: "status" });
  const button = h("button", { type: "button", class: "copy", "aria-label": `Copy ${label}` }, "Copy");
  button.addEventListener("click", () => {
    writeClipboard(value).then(
      () => feedback.textContent = "Copied",
      () => feedback.textContent = "Select the text to copy it"
    );
  });
  return h(
    "div",
    { class: "field" },
    h("dt", {}, label),
    h("dd", {}, h("code", { class: "value", "data-field": label }, value), button, feedback)
  );
}
function plainField(label, ...value) {
  return h("div", { class: "field" }, h("dt", {}, label), h("dd", {}, ...value));
}
function timeElement(iso) {
  const date = new Date(iso);
  return h("time", { datetime: iso }, date.toLocaleString(void 0, { dateStyle: "medium", timeStyle: "medium" }));
}
function formatDuration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1e3));
  const parts = [];
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds % 3600 / 60);
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)} d ${hours % 24} h`;
  if (hours > 0) parts.push(`${hours} h`);
  if (hours > 0 || minutes > 0) parts.push(`${String(minutes).padStart(hours > 0 ? 2 : 1, "0")} min`);
  parts.push(`${String(seconds % 60).padStart(parts.length > 0 ? 2 : 1, "0")} s`);
  return parts.join(" ");
}
async function getJson(path) {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  if (!response.ok) {
    const token = (await response.text()).trim();
    throw Object.assign(new Error(token || `HTTP ${response.status}`), { status: response.status, token });
  }
  return response.json();
}

// web/live.js
import { io } from "/assets/socket.io.esm.min.js";
var Live = class {
  #socket;
  #orders = /* @__PURE__ */ new Map();
  #chains = /* @__PURE__ */ new Map();
  constructor(onConnectionChange) {
    this.#socket = io("/user/v1", { transports: ["websocket", "polling"] });
    this.#socket.on("connect", () => {
      onConnectionChange(true);
      for (const orderId of this.#orders.keys()) this.#subscribeOrder(orderId);
      for (const key of this.#chains.keys()) this.#subscribeChain(key);
    });
    this.#socket.on("disconnect", () => onConnectionChange(false));
    this.#socket.on("stateChanged", (event) => {
      const follower = this.#orders.get(event.orderId);
      if (follower === void 0 || event.sequence <= follower.lastSequence) return;
      follower.lastSequence = event.sequence;
      follower.onStateChanged(event);
    });
    this.#socket.on("blockHeightChanged", ({ network, subnet, height }) => {
      for (const listener of this.#chains.get(`${network}/${subnet}`) ?? []) listener(height);
    });
  }
  /** Emits `event` and resolves with the ack's message, or rejects with its refusal token as `error.token`. */
  call(event, payload) {
    return new Promise((resolve, reject) => {
      this.#socket.emit(event, payload, (ack) => {
        if (ack?.success) resolve(ack.message);
        else reject(Object.assign(new Error(ack?.message ?? "no answer"), { token: ack?.message }));
      });
    });
  }
  /** Calls `onStateChanged` for each state after `lastSequence`, replayed first, then live. */
  followOrder(orderId, lastSequence, onStateChanged) {
    this.#orders.set(orderId, { lastSequence, onStateChanged });
    if (this.#socket.connected) this.#subscribeOrder(orderId);
  }
  /** A reload read the history up to `sequence`: events up to it are old news. */
  sawSequence(orderId, sequence) {
    const follower = this.#orders.get(orderId);
    if (follower !== void 0 && sequence > follower.lastSequence) follower.lastSequence = sequence;
  }
  unfollowAll() {
    for (const orderId of this.#orders.keys()) this.#socket.emit("unsubscribeFromOrderState", { orderId }, () => {
    });
    this.#orders.clear();
    for (const key of this.#chains.keys()) {
      const [network, subnet] = key.split("/");
      this.#socket.emit("unsubscribeFromBlockHeight", { network, subnet }, () => {
      });
    }
    this.#chains.clear();
  }
  followChain(network, subnet, listener) {
    const key = `${network}/${subnet}`;
    const listeners = this.#chains.get(key);
    if (listeners !== void 0) {
      listeners.add(listener);
      return;
    }
    this.#chains.set(key, /* @__PURE__ */ new Set([listener]));
    if (this.#socket.connected) this.#subscribeChain(key);
  }
  #subscribeOrder(orderId) {
    const follower = this.#orders.get(orderId);
    this.#socket.emit("subscribeToOrderState", { orderId, sinceSequence: follower.lastSequence }, () => {
    });
  }
  #subscribeChain(key) {
    const [network, subnet] = key.split("/");
    this.#socket.emit("subscribeToBlockHeight", { network, subnet }, () => {
    });
  }
};

// web/order-card.js
import qrcode from "/assets/qrcode.mjs";

// web/payment-uri.js
var FUND_SELECTOR = "0x478820ce";
var MAINNET_CHAIN_ID = 1;
function toUnits(decimal, decimals) {
  const [whole, fraction = ""] = decimal.split(".");
  return BigInt(whole + fraction.padEnd(decimals, "0").slice(0, decimals));
}
function fromUnits(units, decimals) {
  const digits = units.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}
function amountLeft(amount, amountPaid, decimals) {
  const left = toUnits(amount, decimals) - toUnits(amountPaid, decimals);
  return fromUnits(left > 0n ? left : 0n, decimals);
}
function bitcoinUri(address, amount) {
  return `bitcoin:${address}?amount=${amount}`;
}
function ethereumUri({ to, value, data }, chainId) {
  const match = new RegExp(`^${FUND_SELECTOR}([0-9a-f]{32})0{32}([0-9a-f]{64})0{24}([0-9a-f]{40})$`, "i").exec(data);
  if (match === null || /^0+$/.test(match[3])) return void 0;
  const chain = chainId === void 0 ? "" : `@${chainId}`;
  return `ethereum:${to}${chain}/fund?value=${value}&bytes16=0x${match[1]}&bytes32=0x${match[2]}&address=0x${match[3]}`;
}
function ethereumChainId(network, followedChainId) {
  return network === "mainnet" ? MAINNET_CHAIN_ID : followedChainId;
}

// web/order-card.js
var AWAITING_FUNDS = /* @__PURE__ */ new Set(["WaitingForFundingTx", "PartiallyFunded"]);
var REFUNDING = /* @__PURE__ */ new Set([
  "WaitingForRefundTx",
  "AddressBlacklistedWaitingForRefundTx",
  "WaitingForRefundTxConfirmation"
]);
var REASONS = {
  requestQuote: "Quote accepted",
  fundingSeen: "Funding seen on chain",
  fundingConfirmed: "Funding confirmed",
  fundingReorged: "Funding undone by a reorganisation",
  paymentResult: "Provider paid the invoice",
  paymentFailedAddressBlacklisted: "Provider refused the payment: address blacklisted",
  claimSeen: "Provider claimed with the preimage",
  fundWindowElapsed: "Fund window closed",
  refundHeightReached: "Refund height reached",
  refundSeen: "Refund seen on chain",
  refundConfirmed: "Refund confirmed",
  refundReorged: "Refund undone by a reorganisation"
};
var SLOT_REFUSALS = {
  InvalidFunder: "That is not an Ethereum address (0x and 40 hex digits).",
  SlotNotFound: "No funding of this order from that address."
};
function describeCause(cause) {
  if (cause === void 0) return ["Imported: no cause recorded"];
  const parts = [`${REASONS[cause.reason] ?? cause.reason} (${cause.source} ${cause.reason})`];
  if (cause.txId !== void 0) parts.push(h("span", { class: "hex" }, `tx ${cause.txId}`));
  if (cause.blockHeight !== void 0) parts.push(`block ${cause.blockHeight}`);
  return parts.flatMap((part, index) => index === 0 ? [part] : [" \xB7 ", part]);
}
function shortId(id) {
  return id.slice(0, 8);
}
function qrFigure(uri, label) {
  const code = qrcode(0, "M");
  code.addData(uri, "Byte");
  code.make();
  const figure = h("figure", { class: "qr" });
  figure.innerHTML = code.createSvgTag({ cellSize: 4, margin: 4, scalable: true, alt: label });
  figure.firstElementChild.setAttribute("role", "img");
  figure.firstElementChild.setAttribute("aria-label", label);
  figure.append(h("figcaption", {}, "Scan with a wallet, or copy the fields below."));
  return figure;
}
var OrderCard = class {
  #live;
  #tip;
  #data;
  #countdown;
  #reloading;
  /** The card's parts drawn again on every move and block; the slot form below them is kept, with what is typed in it. */
  #body = h("div", { class: "order-body" });
  #slotForm;
  #slotResult;
  /** The funding address asked about, and its slot's refund answer (or refusal token), read again on every move. */
  #funder;
  #slot;
  element;
  constructor(orderId, live2) {
    this.orderId = orderId;
    this.#live = live2;
    this.element = h("article", { class: "order", "data-order-id": orderId, "aria-labelledby": `order-${orderId}` });
    this.element.append(this.#body);
  }
  async load() {
    const [order, funding, history] = await Promise.all([
      getJson(`/api/orders/${this.orderId}`),
      getJson(`/api/orders/${this.orderId}/fundDetails`),
      getJson(`/tracker/orders/${this.orderId}/history`)
    ]);
    const refund = REFUNDING.has(order.state) ? await getJson(`/api/orders/${this.orderId}/refund`) : void 0;
    const { asset } = history;
    if (this.#funder !== void 0) this.#slot = await this.#readSlot(this.#funder);
    const firstLoad = this.#data === void 0;
    this.#data = { order, funding, history, refund, asset };
    const height = history.chainHeight ?? refund?.details.currentBlockHeight;
    if (height !== void 0 && (this.#tip === void 0 || height > this.#tip)) this.#tip = height;
    const lastSequence = history.states.at(-1)?.sequence ?? 0;
    if (firstLoad) {
      this.#live.followOrder(this.orderId, lastSequence, (event) => this.#moved(event));
      this.#live.followChain(asset.chain, asset.network, (height2) => this.#newBlock(height2));
    } else {
      this.#live.sawSequence(this.orderId, lastSequence);
    }
    this.#render();
  }
  #moved(event) {
    const badge = this.element.querySelector(".state");
    if (badge !== null) {
      badge.textContent = event.state;
      badge.dataset.state = event.state;
    }
    this.#reload();
  }
  /** Moves can come in bursts: one reload at a time, and one more after it if anything moved meanwhile. */
  #reload() {
    if (this.#reloading !== void 0) {
      this.#reloading.again = true;
      return;
    }
    this.#reloading = { again: false };
    this.load().catch(
      () => this.element.querySelector(".order-status")?.replaceChildren("Could not refresh: retrying on the next move")
    ).finally(() => {
      const { again } = this.#reloading;
      this.#reloading = void 0;
      if (again) this.#reload();
    });
  }
  #newBlock(height) {
    if (this.#tip !== void 0 && height <= this.#tip) return;
    this.#tip = height;
    this.#render();
  }
  #render() {
    const { order, funding, history, refund, asset } = this.#data;
    clearInterval(this.#countdown);
    const titleId = `order-${order.id}`;
    this.element.dataset.state = order.state;
    const sections = [
      h(
        "header",
        { class: "order-head" },
        h("h2", { id: titleId }, `${order.market} order `, h("span", { class: "hex" }, shortId(order.id))),
        h("p", { class: "state", "data-state": order.state }, order.state)
      ),
      h(
        "dl",
        { class: "fields" },
        copyable("Order id", order.id),
        plainField("Amount", `${order.amount} ${order.onchainTicker}`),
        plainField("Paid", `${order.amountPaid} ${order.onchainTicker}`),
        plainField("Created", timeElement(order.createdAt)),
        order.paymentPreimage === void 0 ? void 0 : copyable("Payment preimage", order.paymentPreimage)
      ),
      h("p", { class: "order-status", role: "status" }),
      this.#timeline(history),
      AWAITING_FUNDS.has(order.state) ? this.#funding(order, funding, history, asset) : void 0,
      this.#transactions(history),
      refund === void 0 ? void 0 : this.#refund(refund, order)
    ];
    this.#body.replaceChildren(...sections.filter((section) => section !== void 0));
    if (asset.chain === "ethereum" && order.state !== "WaitingForFundingTx") this.#showSlotForm(order);
  }
  /**
   * The contract refunds each funding account's slot on its own, and the order's figures leave out other people's
   * small slots: a funder sees its own slot by giving the address it funded from.
   */
  #showSlotForm(order) {
    if (this.#slotForm === void 0) {
      const inputId = `funder-${order.id}`;
      const input = h("input", {
        id: inputId,
        name: "funder",
        type: "text",
        required: true,
        spellcheck: "false",
        autocomplete: "off",
        autocapitalize: "off",
        placeholder: "0x\u2026"
      });
      const form = h(
        "form",
        { class: "slot-lookup" },
        h("label", { for: inputId }, "Your funding address"),
        input,
        h("button", { type: "submit" }, "Show my slot")
      );
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.#askSlot(input.value.trim());
      });
      this.#slotResult = h("div", { class: "slot-result", role: "status" });
      this.#slotForm = h(
        "section",
        { class: "slot", "aria-label": "Your slot" },
        h("h3", {}, "Your slot"),
        h("p", { class: "hint" }, "Each funding account has its own slot in the swap contract, refunded on its own."),
        form,
        this.#slotResult
      );
      this.element.append(this.#slotForm);
    }
    this.#slotResult.replaceChildren(...this.#slotView(order));
  }
  #askSlot(funder) {
    this.#funder = funder;
    this.#readSlot(funder).then((slot) => {
      this.#slot = slot;
      this.#render();
    });
  }
  async #readSlot(funder) {
    try {
      return { refund: await getJson(`/api/orders/${this.orderId}/refund?funder=${encodeURIComponent(funder)}`) };
    } catch (error) {
      return { refusal: error.token ?? "unreachable" };
    }
  }
  #slotView(order) {
    if (this.#slot === void 0) return [];
    const { refund, refusal: refusal2 } = this.#slot;
    if (refund === void 0) return [h("p", {}, SLOT_REFUSALS[refusal2] ?? `Could not read the slot (${refusal2}).`)];
    const empty = /^0(\.0*)?$/.test(refund.refundableBalance);
    return [
      h(
        "p",
        { class: "slot-when", "data-blocks-remaining": this.#remaining(refund) },
        empty ? "Nothing is left in this slot." : this.#slotWhen(refund)
      ),
      h(
        "dl",
        { class: "fields" },
        plainField("Refundable balance of your slot", `${refund.refundableBalance} ${order.onchainTicker}`),
        copyable("Contract (to), for your slot", refund.details.to),
        copyable("Refund call data, sent from your address", refund.details.data)
      )
    ];
  }
  #remaining(refund) {
    if (refund.refundableAtBlockHeight === void 0) return void 0;
    return this.#tip === void 0 ? refund.blocksRemaining : Math.max(0, refund.refundableAtBlockHeight - this.#tip);
  }
  #slotWhen(refund) {
    return this.#remaining(refund) === void 0 ? "The operator refunds this slot." : this.#refundableIn(refund);
  }
  #when(refund, order) {
    if (order.state === "WaitingForRefundTxConfirmation") {
      return "The refund transaction is sent; it counts once confirmed.";
    }
    return this.#remaining(refund) === void 0 ? "The operator started this refund." : this.#refundableIn(refund);
  }
  #refundableIn(refund) {
    const remaining = this.#remaining(refund);
    if (remaining === 0) return `Refundable now (from block ${refund.refundableAtBlockHeight}).`;
    return `Refundable in ${remaining} block${remaining === 1 ? "" : "s"}, at block ${refund.refundableAtBlockHeight}.`;
  }
  #timeline(history) {
    return h(
      "section",
      { class: "timeline", "aria-label": "States" },
      h("h3", {}, "States"),
      h(
        "ol",
        {},
        history.states.map(
          (step, index) => h(
            "li",
            { "data-state": step.state, "aria-current": index === history.states.length - 1 ? "step" : void 0 },
            h("span", { class: "step-state" }, step.state),
            " ",
            timeElement(step.at),
            h("span", { class: "step-cause" }, describeCause(step.cause))
          )
        )
      )
    );
  }
  #funding(order, funding, history, asset) {
    const { details } = funding;
    const toPay = amountLeft(order.amount, order.amountPaid, asset.decimals);
    const countdown2 = h("strong", { class: "countdown" });
    const tick = () => {
      const left = funding.expiryTimestampMs - Date.now();
      countdown2.textContent = left > 0 ? `${formatDuration(left)} left to fund` : "The fund window has closed";
    };
    tick();
    this.#countdown = setInterval(tick, 1e3);
    const expiry = new Date(funding.expiryTimestampMs).toISOString();
    const head = [h("h3", {}, "Fund it"), h("p", {}, countdown2, " (until ", timeElement(expiry), ")")];
    if (details.unsignedApprovalTx !== void 0) return this.#tokenFunding(order, details, head);
    if (details.unsignedFundingTx !== void 0) {
      const tx = details.unsignedFundingTx;
      const uri2 = ethereumUri(tx, ethereumChainId(asset.network, history.ethereumChainId));
      return h(
        "section",
        { class: "funding", "aria-label": "Funding" },
        head,
        h(
          "p",
          {},
          `Send one transaction calling the swap contract, with exactly this value and data (${order.amount} ${order.onchainTicker}).`
        ),
        uri2 === void 0 ? void 0 : qrFigure(uri2, `QR code of the payment link ${uri2}`),
        h(
          "dl",
          { class: "fields" },
          copyable("To", tx.to),
          copyable("Value (wei)", tx.value),
          copyable("Data", tx.data),
          uri2 === void 0 ? void 0 : copyable("Payment link", uri2)
        )
      );
    }
    const uri = bitcoinUri(details.payToAddress, toPay);
    return h(
      "section",
      { class: "funding", "aria-label": "Funding" },
      head,
      h("p", {}, `Send ${toPay} ${order.onchainTicker} to the swap's address.`),
      qrFigure(uri, `QR code of the payment link ${uri}`),
      h(
        "dl",
        { class: "fields" },
        copyable("Address", details.payToAddress),
        copyable("Amount", toPay),
        copyable("Payment link", uri),
        plainField("Refundable from block", String(details.refundableAtBlockHeight))
      ),
      h("details", {}, h("summary", {}, "Redeem script"), h("code", { class: "value" }, details.redeemScript))
    );
  }
  /** A token is funded in two transactions from one account: the approval must be mined before the funding call. */
  #tokenFunding(order, details, head) {
    const approval = details.unsignedApprovalTx;
    const fundToken = details.unsignedFundingTx;
    const amount = `${order.amount} ${order.onchainTicker}`;
    return h(
      "section",
      { class: "funding", "aria-label": "Funding" },
      head,
      h("p", {}, `Send two transactions from the same account, in this order, each with value 0.`),
      h(
        "ol",
        { class: "funding-steps" },
        h(
          "li",
          { "data-step": "approve" },
          h("h4", {}, `1. Approve: let the swap contract take ${amount}`),
          h("p", {}, "Call the token contract. Wait until it is in a block before the second step."),
          h(
            "dl",
            { class: "fields" },
            copyable("To (token)", approval.to),
            copyable("Value (wei)", approval.value),
            copyable("Data", approval.data)
          )
        ),
        h(
          "li",
          { "data-step": "fundToken" },
          h("h4", {}, `2. Fund: the swap contract takes ${amount}`),
          h("p", {}, "Call the swap contract, from the account that approved."),
          h(
            "dl",
            { class: "fields" },
            copyable("To (swap contract)", fundToken.to),
            copyable("Value (wei)", fundToken.value),
            copyable("Data", fundToken.data)
          )
        )
      )
    );
  }
  #transactions(history) {
    if (history.transactions.length === 0) return void 0;
    return h(
      "section",
      { class: "transactions", "aria-label": "Transactions" },
      h("h3", {}, "Transactions"),
      h(
        "ul",
        {},
        history.transactions.map(
          (tx) => h(
            "li",
            { "data-tx": tx.id },
            h("span", { class: "tx-type" }, tx.type),
            " ",
            h("code", { class: "value" }, tx.id),
            h("span", { class: "confirmations" }, this.#confirmations(tx))
          )
        )
      )
    );
  }
  #confirmations(tx) {
    if (tx.blockHeight === void 0) return "in the mempool, not yet in a block";
    if (this.#tip === void 0 || this.#tip < tx.blockHeight) return `in block ${tx.blockHeight}`;
    const confirmations = this.#tip - tx.blockHeight + 1;
    return `in block ${tx.blockHeight}, ${confirmations} confirmation${confirmations === 1 ? "" : "s"}`;
  }
  #refund(refund, order) {
    const { details } = refund;
    const remaining = this.#remaining(refund);
    const when = this.#when(refund, order);
    const fields = details.to !== void 0 ? [copyable("Contract (to)", details.to), copyable("Refund call data", details.data)] : [
      details.refundAddress === void 0 ? void 0 : copyable("Refund address", details.refundAddress),
      copyable("Redeem script", details.redeemScript),
      plainField("Fee rate", `${details.feeTokensPerVirtualByte} sat/vB`),
      ...details.utxos.map(
        (utxo, index) => copyable(`Output ${index + 1} (${utxo.tokens} sat)`, `${utxo.txId}:${utxo.index}`)
      )
    ];
    return h(
      "section",
      { class: "refund", "aria-label": "Refund" },
      h("h3", {}, "Refund"),
      h("p", { class: "blocks-remaining", "data-blocks-remaining": remaining }, when),
      h(
        "dl",
        { class: "fields" },
        plainField("Refundable balance", `${refund.refundableBalance} ${order.onchainTicker}`),
        fields
      )
    );
  }
  dispose() {
    clearInterval(this.#countdown);
  }
};

// web/pay/amounts.js
var SATOSHIS_PER_BITCOIN = 100000000n;
function toUnits2(decimal) {
  const [whole, fraction = ""] = decimal.split(".");
  return { units: BigInt(whole + fraction), decimals: fraction.length };
}
function fromUnits2(units, decimals) {
  const digits = units.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}
function pricePerBitcoin(amount, satoshis) {
  const { units, decimals } = toUnits2(amount);
  return fromUnits2(units * SATOSHIS_PER_BITCOIN / satoshis, decimals);
}
function grouped(integer) {
  return String(integer).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202F");
}

// web/pay/invoice.js
var import_light_bolt11_decoder = __toESM(require_bolt11(), 1);
var NETWORKS = { bc: "mainnet", tb: "testnet", bcrt: "simnet", sb: "simnet" };
function readInvoice(text, nowMs) {
  const invoice = text.trim().replace(/^lightning:/i, "").toLowerCase();
  let sections;
  try {
    sections = (0, import_light_bolt11_decoder.decode)(invoice).sections;
  } catch {
    return { refusal: "InvalidInvoice" };
  }
  const field = (name) => sections.find((section) => section.name === name)?.value;
  const network = NETWORKS[field("coin_network")?.bech32];
  if (network === void 0) return { refusal: "InvalidInvoice" };
  const amount = field("amount");
  if (amount === void 0) return { refusal: "InvoiceWithoutAmount" };
  const millisatoshis = BigInt(amount);
  const expiresAtMs = (field("timestamp") + (field("expiry") ?? 3600)) * 1e3;
  if (expiresAtMs <= nowMs) return { refusal: "InvoiceExpired" };
  return {
    invoice,
    network,
    millisatoshis,
    satoshis: millisatoshis / 1000n,
    description: field("description") ?? "",
    expiresAtMs
  };
}

// web/pay/market-fit.js
var OFFCHAIN_NETWORKS = { LBTC: "mainnet", LTBTC: "testnet", LSBTC: "simnet" };
function marketNetwork(market) {
  return OFFCHAIN_NETWORKS[market.slice(market.lastIndexOf("_") + 1)];
}
function fitMarkets(invoice, requirements, nowMs) {
  return requirements.map(({ market, payReq }) => ({ market, payReq, misfit: misfit(invoice, market, payReq, nowMs) }));
}
function misfit(invoice, market, payReq, nowMs) {
  const network = marketNetwork(market);
  if (network !== invoice.network) {
    return `${market} pays ${network} invoices, and this one is for ${invoice.network}.`;
  }
  const secondsLeft = Math.floor((invoice.expiresAtMs - nowMs) / 1e3);
  if (secondsLeft < Number(payReq.minExpirationSeconds)) {
    return `${market} needs an invoice valid for at least ${payReq.minExpirationSeconds} s, and this one expires in ${secondsLeft} s.`;
  }
  if (invoice.millisatoshis < BigInt(payReq.minBaseUnits) * 1000n) {
    return `${market} pays invoices of ${payReq.minBaseUnits} sat or more, and this one asks for ${invoice.satoshis} sat.`;
  }
  if (invoice.millisatoshis > BigInt(payReq.maxBaseUnits) * 1000n) {
    return `${market} pays invoices of at most ${payReq.maxBaseUnits} sat, and this one asks for ${invoice.satoshis} sat.`;
  }
  return void 0;
}

// web/pay/sentences.js
var SENTENCES = {
  InvalidInvoice: 'That is not a Lightning invoice this service can read: copy the whole invoice, starting with "ln".',
  InvoiceWithoutAmount: "This invoice leaves the amount to the payer; ask the payee for an invoice with an amount.",
  InvoiceExpired: "This invoice has expired; ask the payee for a new one.",
  InvalidMarket: "This service no longer offers that market.",
  InvalidMarketForInvoice: "The invoice belongs to another Lightning network than the market's.",
  NoQuoteProvidersAvailable: "No provider is online just now, so nobody can pay the invoice; try again later.",
  NoQuoteProvidersForTheRequestedMarket: "No provider serves this market just now; pick another one or try later.",
  InvoiceExpiresTooSoon: "The invoice expires too soon for a swap to finish; ask the payee for one that lasts longer.",
  InvoiceAmountBelowMinimum: "The invoice asks for less than the providers pay; ask the payee for a larger invoice.",
  InvoiceAmountAboveMaximum: "The invoice asks for more than the providers pay; ask the payee for smaller invoices.",
  SwapAlreadyInProgress: "This invoice already has a swap; follow it on the tracker page or ask for a new invoice.",
  TooManySwapsInFlight: "The service has too many swaps under way just now; try again in a minute.",
  NoQuotesAvailable: "No provider offered a price in time; try again in a moment.",
  InvalidRefundAddress: "That refund address cannot be used: give a P2PKH or P2WPKH address of the right network.",
  TooManyRequests: "Too many requests from this address; wait a moment and try again.",
  ServiceUnavailable: "The service cannot reach its database just now; try again in a moment.",
  NoWallet: "No browser wallet was found: install one (such as MetaMask) or pay from another device.",
  WalletRefused: "The wallet refused the request.",
  WrongChain: "The wallet is on another chain than the market and did not switch.",
  TransactionReverted: "The transaction failed on chain; nothing was paid.",
  FundWindowElapsed: "The time to fund this quote has passed: ask for a new quote."
};
function sentence(token) {
  return SENTENCES[token] ?? `The service refused: ${token}.`;
}

// web/pay/wallet.js
var RECEIPT_POLL_MS = 1e3;
var USUAL_CHAIN_IDS = { mainnet: 1, testnet: 11155111, simnet: 31337 };
var hex = (number) => `0x${number.toString(16)}`;
var refusal = (token) => Object.assign(new Error(token), { token });
var Wallet = class _Wallet {
  #provider;
  account;
  constructor(provider) {
    this.#provider = provider;
  }
  /** The injected wallet, or a refusal saying there is none. */
  static injected() {
    if (window.ethereum === void 0) throw refusal("NoWallet");
    return new _Wallet(window.ethereum);
  }
  async #request(method, params) {
    try {
      return await this.#provider.request(params === void 0 ? { method } : { method, params });
    } catch (error) {
      throw Object.assign(refusal("WalletRefused"), { detail: error?.message });
    }
  }
  async connect() {
    const [account] = await this.#request("eth_requestAccounts");
    if (account === void 0) throw refusal("WalletRefused");
    this.account = account;
    return account;
  }
  async chainId() {
    return Number(await this.#request("eth_chainId"));
  }
  /**
   * Asks the wallet to switch when it is on another chain than `wanted`; resolves once it is on `wanted`.
   * `onAsk` hears the ids before the wallet is asked, so the page can say why a prompt appears.
   */
  async ensureChain(wanted, onAsk) {
    const current = await this.chainId();
    if (current === wanted) return;
    onAsk(current, wanted);
    await this.#request("wallet_switchEthereumChain", [{ chainId: hex(wanted) }]);
    if (await this.chainId() !== wanted) throw refusal("WrongChain");
  }
  /** Sends one of the service's unsigned transactions `{ to, data, value }` from the connected account. */
  async send({ to, data, value }) {
    return this.#request("eth_sendTransaction", [{ from: this.account, to, data, value: hex(BigInt(value)) }]);
  }
  /** Polls until `hash` is mined; `onProgress` hears its confirmations on each poll. Throws when it reverted. */
  async confirm(hash, onProgress, wanted = 1) {
    for (; ; ) {
      const receipt = await this.#request("eth_getTransactionReceipt", [hash]);
      if (receipt !== null && receipt !== void 0) {
        if (receipt.status !== "0x1") throw refusal("TransactionReverted");
        const tip = Number(await this.#request("eth_blockNumber"));
        const confirmations = tip - Number(receipt.blockNumber) + 1;
        onProgress(confirmations);
        if (confirmations >= wanted) return receipt;
      } else {
        onProgress(0);
      }
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }
};
function chainIdFor(network, followedChainId) {
  if (network === "mainnet") return 1;
  return followedChainId ?? USUAL_CHAIN_IDS[network];
}

// web/pay/main.js
var $ = (id) => document.getElementById(id);
var REFUNDABLE = /* @__PURE__ */ new Set(["Funded", "PartiallyFunded", "WaitingForRefundTx"]);
var FINAL = /* @__PURE__ */ new Set(["Complete", "Refunded", "FundWindowElapsed"]);
var live = new Live((connected) => {
  $("live-status").textContent = connected ? "Live updates: on" : "Live updates: reconnecting";
  document.body.dataset.live = connected ? "on" : "off";
});
var swap = { invoice: void 0, quote: void 0, market: void 0, chainId: void 0, wallet: void 0, card: void 0 };
var countdown;
var say = (id, text) => $(id).textContent = text;
var refusalOf = (error) => sentence(error.token ?? "Unexpected");
function showInvoice(invoice) {
  $("invoice-details").replaceChildren(
    plainField("Amount", `${grouped(invoice.satoshis)} sat`),
    plainField("Description", invoice.description === "" ? "(none)" : invoice.description),
    plainField("Network", invoice.network),
    plainField("Expires", timeElement(new Date(invoice.expiresAtMs).toISOString()))
  );
}
async function readPasted(event) {
  event.preventDefault();
  resetSwap();
  const invoice = readInvoice($("invoice").value, Date.now());
  if (invoice.refusal !== void 0) {
    $("invoice-details").replaceChildren();
    say("invoice-status", sentence(invoice.refusal));
    return;
  }
  swap.invoice = invoice;
  showInvoice(invoice);
  say("invoice-status", "Reading the markets\u2026");
  let requirements;
  try {
    requirements = await getJson("/api/markets/requirements");
  } catch (error) {
    say("invoice-status", refusalOf(error));
    return;
  }
  const fits = fitMarkets(invoice, requirements, Date.now());
  $("markets").replaceChildren(...fits.map(marketItem));
  const fitting = fits.filter((fit) => fit.misfit === void 0).length;
  say(
    "invoice-status",
    requirements.length === 0 ? sentence("NoQuoteProvidersAvailable") : fitting === 0 ? "No market can pay this invoice:" : `This invoice can be paid on ${fitting} market${fitting === 1 ? "" : "s"}:`
  );
}
function marketItem({ market, misfit: misfit2 }) {
  const [onchain] = market.split("_");
  if (misfit2 !== void 0) return h("li", { class: "misfit", "data-market": market }, h("p", {}, misfit2));
  const bitcoin = onchain === "BTC" || onchain === "SBTC" || onchain === "TBTC";
  const refundField = bitcoin ? h(
    "label",
    {},
    "Your Bitcoin refund address (P2WPKH or P2PKH), in case the payment fails",
    h("input", { name: "refundAddress", required: true, spellcheck: "false", autocomplete: "off" })
  ) : void 0;
  const form = h(
    "form",
    { class: "market-quote", "data-market": market },
    refundField,
    h("button", { type: "submit" }, `Pay with ${onchain}`)
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void requestQuote(market, form.elements.namedItem("refundAddress")?.value);
  });
  return h("li", { class: "fit", "data-market": market }, form);
}
async function requestQuote(market, refundAddress) {
  say("quote-status", `Asking the providers of ${market} for a price\u2026`);
  $("quote").hidden = false;
  $("quote-details").replaceChildren();
  let quote;
  try {
    quote = await live.call("requestQuote", {
      market,
      invoice: swap.invoice.invoice,
      ...refundAddress === void 0 ? {} : { refundAddress }
    });
  } catch (error) {
    say("quote-status", refusalOf(error));
    return;
  }
  swap.quote = quote;
  swap.market = market;
  const ticker = market.split("_")[0];
  say("quote-status", "");
  $("markets").replaceChildren();
  $("quote-details").replaceChildren(
    plainField("You pay", h("strong", { "data-field": "amount" }, `${quote.amount} ${ticker}`)),
    plainField("The payee gets", `${grouped(swap.invoice.satoshis)} sat`),
    plainField("Rate", `${pricePerBitcoin(quote.amount, swap.invoice.satoshis)} ${ticker} per BTC, provider's fee included`),
    plainField("Time left to fund", h("span", { id: "countdown" }))
  );
  startCountdown(quote.expiryTimestampMs);
  const history = await getJson(`/tracker/orders/${quote.orderId}/history`);
  if (history.asset.chain === "ethereum") showWalletPayment(history);
  else showBitcoinPayment(quote, ticker);
  followOrder(quote.orderId);
}
function startCountdown(expiryMs) {
  clearInterval(countdown);
  const tick = () => {
    const left = expiryMs - Date.now();
    say("countdown", left > 0 ? formatDuration(left) : "the time to fund has passed");
    if (left <= 0) clearInterval(countdown);
  };
  tick();
  countdown = setInterval(tick, 1e3);
}
function showBitcoinPayment(quote, ticker) {
  const { payToAddress } = quote.details;
  const uri = bitcoinUri(payToAddress, quote.amount);
  const code = qrcode2(0, "M");
  code.addData(uri);
  code.make();
  $("bitcoin").hidden = false;
  $("bitcoin-details").replaceChildren(
    copyable("Address", payToAddress),
    copyable("Amount", `${quote.amount}`),
    plainField("Asset", ticker)
  );
  $("bitcoin-qr").replaceChildren(
    h("img", { src: code.createDataURL(4, 8), alt: `QR code of ${uri}`, class: "qr", "data-uri": uri })
  );
}
function showWalletPayment(history) {
  $("wallet").hidden = false;
  swap.chainId = chainIdFor(marketNetwork(swap.market), history.ethereumChainId);
  $("pay-with-wallet").onclick = () => void payWithWallet(swap.chainId);
}
function walletStep(label) {
  const state = h("span", { class: "tx-state" }, "waiting for the wallet");
  const item = h("li", { class: "wallet-step" }, h("span", {}, `${label}: `), state);
  $("wallet-steps").append(item);
  return {
    sent(hash) {
      item.dataset.hash = hash;
      item.append(" ", h("code", { class: "hex" }, hash));
    },
    progress(text) {
      state.textContent = text;
      item.dataset.state = text;
    }
  };
}
async function connectedWallet(wanted) {
  if (swap.wallet === void 0) {
    const wallet = Wallet.injected();
    await wallet.connect();
    swap.wallet = wallet;
  }
  say("wallet-status", `Connected: ${swap.wallet.account}`);
  await swap.wallet.ensureChain(
    wanted,
    (current) => say("wallet-status", `Your wallet is on chain ${current}; this order settles on chain ${wanted}. Please switch.`)
  );
  return swap.wallet;
}
async function sendAndConfirm(wallet, label, tx) {
  const step = walletStep(label);
  const hash = await wallet.send(tx);
  step.sent(hash);
  await wallet.confirm(
    hash,
    (confirmations) => step.progress(confirmations === 0 ? "sent, not yet in a block" : `${confirmations} confirmation${confirmations === 1 ? "" : "s"}`)
  );
  return hash;
}
async function payWithWallet(wanted) {
  $("pay-with-wallet").disabled = true;
  try {
    const wallet = await connectedWallet(wanted);
    say("wallet-status", `Connected: ${wallet.account}, chain ${wanted}`);
    const { unsignedApprovalTx, unsignedFundingTx } = swap.quote.details;
    if (unsignedApprovalTx !== void 0) await sendAndConfirm(wallet, "Approval", unsignedApprovalTx);
    await sendAndConfirm(wallet, "Funding", unsignedFundingTx);
    clearInterval(countdown);
    say("countdown", "funded");
    say("wallet-status", "Funded: the provider now pays the invoice.");
  } catch (error) {
    say("wallet-status", refusalOf(error));
    $("pay-with-wallet").disabled = false;
  }
}
function followOrder(orderId) {
  const listening = {
    followOrder: (id, sequence, onStateChanged) => live.followOrder(id, sequence, (event) => {
      onStateChanged(event);
      void moved(event.state);
    }),
    sawSequence: (id, sequence) => live.sawSequence(id, sequence),
    followChain: (chain, network, listener) => live.followChain(chain, network, (height) => {
      listener(height);
      void refreshRefund();
    })
  };
  swap.card = new OrderCard(orderId, listening);
  $("order").replaceChildren(swap.card.element);
  void swap.card.load();
}
async function moved(state) {
  if (state === "Complete") {
    const order = await getJson(`/api/orders/${swap.quote.orderId}`);
    $("done").hidden = false;
    $("done").replaceChildren(
      h("h2", {}, "Paid"),
      h("p", {}, "The invoice is paid. The preimage below proves it: only the payee could reveal it."),
      h("dl", { class: "fields" }, copyable("Proof of payment (preimage)", order.paymentPreimage))
    );
  }
  if (FINAL.has(state)) clearInterval(countdown);
  if (state === "FundWindowElapsed") say("wallet-status", sentence("FundWindowElapsed"));
  await refreshRefund(state);
}
async function refreshRefund(knownState) {
  if (swap.quote === void 0) return;
  const orderId = swap.quote.orderId;
  const state = knownState ?? await getJson(`/api/orders/${orderId}/state`);
  if (!REFUNDABLE.has(state)) {
    if (FINAL.has(state)) $("refund").hidden = true;
    return;
  }
  const funder = swap.wallet?.account;
  const refund = await getJson(`/api/orders/${orderId}/refund${funder === void 0 ? "" : `?funder=${funder}`}`).catch(
    () => void 0
  );
  if (refund === void 0 || refund.type !== "TimelockRefund") return;
  $("refund").hidden = false;
  const ready = state === "WaitingForRefundTx" && refund.blocksRemaining === 0;
  say(
    "refund-status",
    ready ? "The payment did not go through: take your coins back." : `If the invoice is not paid, you can take your coins back in ${refund.blocksRemaining} block${refund.blocksRemaining === 1 ? "" : "s"}.`
  );
  $("refund-button").dataset.blocksRemaining = String(refund.blocksRemaining);
  $("refund-button").disabled = !ready;
  $("refund-button").onclick = () => void sendRefund(refund);
}
async function sendRefund(refund) {
  $("refund-button").disabled = true;
  if (refund.details.to === void 0) {
    say("refund-status", "A Bitcoin refund is signed by your own wallet: use the refund details below.");
    return;
  }
  try {
    const wallet = await connectedWallet(swap.chainId);
    await sendAndConfirm(wallet, "Refund", { to: refund.details.to, data: refund.details.data, value: "0" });
    say("refund-status", "Refund sent: the coins are back in your wallet once it is confirmed.");
  } catch (error) {
    say("refund-status", refusalOf(error));
    $("refund-button").disabled = false;
  }
}
function resetSwap() {
  clearInterval(countdown);
  swap.card?.dispose();
  live.unfollowAll();
  Object.assign(swap, { invoice: void 0, quote: void 0, market: void 0, chainId: void 0, card: void 0 });
  for (const id of ["quote", "wallet", "bitcoin", "refund", "done"]) $(id).hidden = true;
  for (const id of ["markets", "wallet-steps", "order"]) $(id).replaceChildren();
  $("pay-with-wallet").disabled = false;
}
function offerScanning() {
  if (!("BarcodeDetector" in window) || navigator.mediaDevices === void 0) return;
  $("scan").hidden = false;
  $("scan").addEventListener("click", () => void scan());
}
async function scan() {
  const video = $("camera");
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
    video.hidden = false;
    video.srcObject = stream;
    await video.play();
    const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
    for (; ; ) {
      const [code] = await detector.detect(video);
      if (code !== void 0) {
        $("invoice").value = code.rawValue;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const track of stream.getTracks()) track.stop();
    video.hidden = true;
    $("invoice-form").requestSubmit();
  } catch {
    video.hidden = true;
    say("invoice-status", "The camera could not be used here: paste the invoice instead.");
  }
}
$("invoice-form").addEventListener("submit", (event) => void readPasted(event));
offerScanning();
