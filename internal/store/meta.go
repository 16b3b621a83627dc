package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// Meta returns a value of the key-value meta table, or "" and false.
func (tx *Tx) Meta(key string) (string, bool, error) {
	var v string
	err := tx.QueryRow("SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, true, nil
}

// SetMeta writes a value of the meta table.
func (tx *Tx) SetMeta(key, value string) error {
	_, err := tx.Exec(`INSERT INTO meta(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}
