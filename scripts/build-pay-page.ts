/** `npm run build:pay-page`: writes web/pay.js from web/pay/ (scripts/pay-page-bundle.ts). */
import { writeFile } from 'node:fs/promises';
import { buildPayPage, PAY_PAGE_BUNDLE } from './pay-page-bundle.js';

await writeFile(PAY_PAGE_BUNDLE, await buildPayPage());
console.log(`wrote ${PAY_PAGE_BUNDLE}`);
