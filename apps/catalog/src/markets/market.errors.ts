import { notFound } from '@lms/platform';

export const marketNotFound = (id: string) => notFound('MARKET_NOT_FOUND', `No market ${id} is available to this account.`);

export const marketItemNotFound = (market: string, id: string) => notFound('MARKET_ITEM_NOT_FOUND', `Market ${market} has no item ${id}.`);
