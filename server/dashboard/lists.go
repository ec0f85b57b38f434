package dashboard

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Query parameters every list takes, kept in the address so that a list
// can be reloaded, bookmarked and shared as it is shown.
const (
	pageParam = "page" // 1-based
	sizeParam = "size" // rows a page
	sortParam = "sort" // a column's key, "-key" for descending
)

// Rows a page: defaultPageSize unless ?size= says otherwise, up to
// maxPageSize, which keeps a page's HTML small at any fleet size.
const (
	defaultPageSize = 100
	maxPageSize     = 500
)

// listParams are a list's page and order.
type listParams struct {
	Page, Size int
	Sort       string // a column's key
	Desc       bool
}

// parseList reads a list's paging and sort from q; sort must be one of
// columns, def when unset.
func parseList(q url.Values, columns []column, def string) (listParams, error) {
	p := listParams{Page: 1, Size: defaultPageSize, Sort: def}
	if s := q.Get(pageParam); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return p, fmt.Errorf("%s=%s is not a page number: give 1 or more", pageParam, s)
		}
		p.Page = n
	}
	if s := q.Get(sizeParam); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPageSize {
			return p, fmt.Errorf("%s=%s is not a page size: give 1 to %d", sizeParam, s, maxPageSize)
		}
		p.Size = n
	}
	if s := q.Get(sortParam); s != "" {
		key, desc := strings.CutPrefix(s, "-")
		if !slices.ContainsFunc(columns, func(c column) bool { return c.Key == key }) {
			var keys []string
			for _, c := range columns {
				keys = append(keys, c.Key)
			}
			return p, fmt.Errorf("%s=%s is not a column: use one of %s, with - before it for descending", sortParam, s, strings.Join(keys, ", "))
		}
		p.Sort, p.Desc = key, desc
	}
	return p, nil
}

// column is one sortable column of a list.
type column struct {
	Key, Label string
	Num        bool // right-aligned
}

// header is a column as a table's header shows it: a link that sorts by
// it (ascending, or descending when it is sorted ascending already).
type header struct {
	Label string
	Href  string
	Sort  string // aria-sort: ascending, descending or none
	Num   bool
}

// headers lays out the columns of a list at u sorted by p.
func headers(u *url.URL, p listParams, columns []column) []header {
	out := make([]header, 0, len(columns))
	for _, c := range columns {
		h := header{Label: c.Label, Sort: "none", Num: c.Num}
		next := c.Key
		if p.Sort == c.Key {
			h.Sort = "ascending"
			if p.Desc {
				h.Sort = "descending"
			} else {
				next = "-" + c.Key
			}
		}
		h.Href = withParams(u, map[string]string{sortParam: next, pageParam: ""})
		out = append(out, h)
	}
	return out
}

// pager is where a page sits in its list, with links to its neighbours
// ("" where there is none).
type pager struct {
	From, To, Total int // 1-based rows shown, of Total
	Page, Pages     int
	First, Prev     string
	Next, Last      string
	// More says there are rows beyond To that were not read, so Total
	// and Pages count only those read (and Last is unknown).
	More bool
	// Sizes are the page sizes to choose from, each a link to the first
	// page at that size.
	Sizes []pageSize
}

// pageSize is one page size offered, Current when it is the page's.
type pageSize struct {
	Rows    int
	Href    string
	Current bool
}

// pageOf returns the rows of page p of items, and the pager at u.
func pageOf[T any](u *url.URL, p listParams, items []T) ([]T, pager) {
	total := len(items)
	pages := max(1, (total+p.Size-1)/p.Size)
	page := min(p.Page, pages)
	from := min((page-1)*p.Size, total)
	to := min(from+p.Size, total)
	pg := pager{From: from + 1, To: to, Total: total, Page: page, Pages: pages}
	if total == 0 {
		pg.From = 0
	}
	if page > 1 {
		pg.First, pg.Prev = pageLink(u, 1), pageLink(u, page-1)
	}
	if page < pages {
		pg.Next, pg.Last = pageLink(u, page+1), pageLink(u, pages)
	}
	for _, n := range []int{25, defaultPageSize, 250, maxPageSize} {
		pg.Sizes = append(pg.Sizes, pageSize{Rows: n, Current: n == p.Size,
			Href: withParams(u, map[string]string{sizeParam: strconv.Itoa(n), pageParam: ""})})
	}
	return items[from:to], pg
}

// pageLink is page n of the list at u.
func pageLink(u *url.URL, n int) string {
	return withParams(u, map[string]string{pageParam: strconv.Itoa(n)})
}

// withParams is u's path and query with set's parameters replaced ("":
// removed); the result is relative, for links on the same page.
func withParams(u *url.URL, set map[string]string) string {
	q := u.Query()
	q.Del("part")
	for k, v := range set {
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}

// order compares two rows by the sort's column (its less function
// returns -1, 0 or 1), descending when p says so, and ties by tie.
func order[T any](p listParams, by map[string]func(a, b T) int, tie func(a, b T) int) func(a, b T) int {
	cmpCol := by[p.Sort]
	return func(a, b T) int {
		if cmpCol != nil {
			if c := cmpCol(a, b); c != 0 {
				if p.Desc {
					return -c
				}
				return c
			}
		}
		return tie(a, b)
	}
}
