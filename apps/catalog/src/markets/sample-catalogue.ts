import type { MarketCatalogue } from './market-catalogue.js';

/**
 * The catalogues an embedded install starts with (`npm start` without DATABASE_URL), so the markets can be
 * tried at once. Invented titles and ids; a real install loads the vendors' catalogues (docs/catalog.md).
 */
export const SAMPLE_CATALOGUE: MarketCatalogue = {
  markets: [
    {
      id: 'third_party_a',
      name: 'Third-party library A',
      description: 'Business and software skills, video courses.',
      account_ids: null,
      items: [
        { id: 'a-1001', title: 'Spreadsheet fundamentals', description: 'Formulas, references and charts.', estimated_time: 95, language: 'en', thumbnail_url: null, launch_url: 'https://market-a.example.com/courses/a-1001' },
        { id: 'a-1002', title: 'Giving feedback that lands', description: 'A model for clear, kind feedback.', estimated_time: 40, language: 'en', thumbnail_url: null, launch_url: 'https://market-a.example.com/courses/a-1002' },
        { id: 'a-1003', title: 'Project management essentials', description: 'Scope, schedule and stakeholders.', estimated_time: 120, language: 'en', thumbnail_url: null, launch_url: 'https://market-a.example.com/courses/a-1003' },
        { id: 'a-1004', title: 'Introduction to SQL', description: 'Querying relational data.', estimated_time: 150, language: 'en', thumbnail_url: null, launch_url: 'https://market-a.example.com/courses/a-1004' },
        { id: 'a-1005', title: 'Presentaciones eficaces', description: 'Estructura y diseño de presentaciones.', estimated_time: 55, language: 'es', thumbnail_url: null, launch_url: 'https://market-a.example.com/courses/a-1005' },
      ],
    },
    {
      id: 'third_party_b',
      name: 'Third-party library B',
      description: 'Compliance and safety, short modules.',
      account_ids: null,
      items: [
        { id: 'b-2001', title: 'Data privacy basics', description: 'Personal data and how to handle it.', estimated_time: 20, language: 'en', thumbnail_url: null, launch_url: 'https://market-b.example.com/courses/b-2001' },
        { id: 'b-2002', title: 'Workplace safety', description: 'Hazards, reporting and first steps.', estimated_time: 25, language: 'en', thumbnail_url: null, launch_url: 'https://market-b.example.com/courses/b-2002' },
        { id: 'b-2003', title: 'Anti-harassment training', description: 'Recognising and preventing harassment.', estimated_time: 45, language: 'en', thumbnail_url: null, launch_url: 'https://market-b.example.com/courses/b-2003' },
        { id: 'b-2004', title: 'Information security awareness', description: 'Phishing, passwords and devices.', estimated_time: 30, language: 'en', thumbnail_url: null, launch_url: 'https://market-b.example.com/courses/b-2004' },
      ],
    },
  ],
};
