-- Q16 Parts/Supplier Relationship (spec 2.4.16); :1 = BRAND, :2 = TYPE, :3..:10 = SIZE1..8
select
    p_brand,
    p_type,
    p_size,
    count(distinct ps_suppkey) as supplier_cnt
from
    partsupp,
    part
where
    p_partkey = ps_partkey
    and p_brand <> ':1'
    and p_type not like ':2%'
    and p_size in (:3, :4, :5, :6, :7, :8, :9, :10)
    and ps_suppkey not in (
        select
            s_suppkey
        from
            supplier
        where
            s_comment like '%Customer%Complaints%'
    )
group by
    p_brand,
    p_type,
    p_size
order by
    supplier_cnt desc,
    p_brand,
    p_type,
    p_size;
