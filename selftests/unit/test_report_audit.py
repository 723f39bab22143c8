# SPDX-License-Identifier: GPL-2.0
"""The merge of kautobuild's results (report.merge_results()) and the
audit's identity of a finding across two trees (audit_review.identity(),
mark())."""

from kbuildgate import audit_review, report


def test_merge_keeps_first_order_and_later_result():
    a = [{'name': 'x', 'status': 'FAIL'}, {'name': 'y', 'status': 'PASS'}]
    b = [{'name': 'z', 'status': 'PASS'}, {'name': 'x', 'status': 'PASS'}]
    results, again = report.merge_results([('a.json', a), ('b.json', b)])
    assert [(r['name'], r['status']) for r in results] == [
        ('x', 'PASS'), ('y', 'PASS'), ('z', 'PASS')]
    assert again == [('b.json', 'x')]
    for r in results:
        r['steps'] = {}
    assert report.exit_status(results) == 0
    results[1]['steps'] = {'build': {'status': 'FAIL'}}
    results[1]['status'] = 'FAIL'
    assert report.exit_status(results) == 1
    results[1]['steps']['boot'] = {'status': 'FAIL', 'infrastructure': True}
    assert report.exit_status(results) == 2


def finding(line, tristate_only=False, condition='y'):
    return {'selector': 'S', 'target': 'T', 'condition': condition,
            'line': line, 'file': 'K', 'tristate_only': tristate_only}


def test_identity_is_not_the_line():
    assert audit_review.identity(finding(3)) == \
        audit_review.identity(finding(30))
    assert audit_review.identity(finding(3)) != \
        audit_review.identity(finding(3, condition='M'))


def test_mark_new_and_known():
    base = {'findings': [finding(3), finding(5, condition='A')]}
    doc = {'findings': [finding(40), finding(5, True, 'A'),
                        finding(6, condition='B')]}
    audit_review.mark(doc, base)
    assert [f['status'] for f in doc['findings']] == ['known', 'new', 'new']
    assert doc['findings'][1]['reason'] == \
        'the base has it, but not tristate only'
    assert doc['findings'][2]['reason'] == \
        'no configuration of the base leaves it unmet'
