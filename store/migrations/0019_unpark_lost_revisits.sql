-- 0019_unpark_lost_revisits: a page parked for good (next = 2200-01-01, the engine's
-- "never") whose URL is fetched or failed, neither queued nor in a lane's hand,
-- gets a due time again: its last fetch (its first when it has none), so it is due
-- at once. Older engines parked the due pages in one commit and queued their URLs
-- in later ones: a process killed between the two left pages parked with no task
-- and no next time, never revisited again, and a store of them alone said "nothing
-- to crawl". The store cannot tell those from pages the engine parked on purpose,
-- except the ones steering withdrew (their URL's kind is steered_out), which stay
-- parked. The engine tells those past their class window, at the first tick, which
-- parks them again in the write that queues the others; a feed or sitemap of a
-- site removed (:site rm) is read once more, and that read parks it again. Pages
-- parked while their URL waits in the queue are left so: their fetch gives them
-- their next due time. The parked rows are found through the due order's index,
-- each one's URL state by its row id.
UPDATE revisit SET next = max(last, first, 1)
    WHERE next = 7258118400000000000
      AND EXISTS (SELECT 1 FROM urls WHERE urls.seq = revisit.seq AND urls.state IN (2, 3)
                  AND coalesce(urls.err_kind, '') != 'steered_out');
