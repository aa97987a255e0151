export const WEB_SEARCH = Symbol('WEB_SEARCH');
export const SCRAPER = Symbol('SCRAPER');
export const TEXT_PARSER = Symbol('TEXT_PARSER');
